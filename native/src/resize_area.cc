// cv2.resize(..., interpolation=INTER_AREA) for shrinking packed RGB, exposed
// to JS. The algorithm lives in resize_core.cc, which the TurboJPEG addon
// (turbo_addon.cc) shares for its crop-and-resize paths.

#include <cstdint>

#include "args.h"
#include "beton_native.h"
#include "errors.h"
#include "resize_core.h"

namespace beton {
namespace {

constexpr int kChannels = 3;

}  // namespace

Napi::Value ResizeAreaRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr int64_t kMaxSide = 1 << 20;  // keeps every int index below 2^31
  ByteView src = RequireBytes(info, 0, "src");
  int src_w = static_cast<int>(RequireInteger(info, 1, "srcWidth", 1, kMaxSide));
  int src_h = static_cast<int>(RequireInteger(info, 2, "srcHeight", 1, kMaxSide));
  ByteView dst = RequireBytes(info, 3, "dst");
  int dst_w = static_cast<int>(RequireInteger(info, 4, "dstWidth", 1, kMaxSide));
  int dst_h = static_cast<int>(RequireInteger(info, 5, "dstHeight", 1, kMaxSide));

  if (dst_w > src_w || dst_h > src_h) {
    throw Napi::RangeError::New(env, "resizeAreaRGB only shrinks: dst must fit in src");
  }
  size_t src_needed = static_cast<size_t>(src_w) * src_h * kChannels;
  size_t dst_needed = static_cast<size_t>(dst_w) * dst_h * kChannels;
  if (src.length < src_needed || dst.length < dst_needed) {
    throw MakeError(env, kErrBufferSize,
                    src.length < src_needed ? "src is smaller than srcWidth*srcHeight*3"
                                            : "dst is smaller than dstWidth*dstHeight*3");
  }
  if (src_needed > (size_t{1} << 31)) {
    throw Napi::RangeError::New(env, "source image too large (over 2 GiB)");
  }

  ResizeAreaShrinkRGB(src.data, static_cast<size_t>(src_w) * kChannels, src_w, src_h,
                      dst.data, dst_w, dst_h);
  return env.Undefined();
}

}  // namespace beton

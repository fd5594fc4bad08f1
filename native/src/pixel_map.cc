// The loader's fused per-pixel pass (core/pipeline/pixel-kernel.ts) in C++:
// one read of each packed HWC uint8 pixel, an optional horizontal mirror, an
// optional per-channel lookup table, and an HWC or CHW write. In JS this pass
// cost about a third of a worker's time per 160x160 image; here it is a few
// tens of microseconds.
//
// The table holds C*256 entries already in the destination's element type
// (uint8 ... float64, float16 as its bit pattern), `elem_bytes` each, so one
// kernel serves every output dtype by copying entries: no float conversion or
// rounding happens here, which keeps it bit-identical to the JS pass.

#include <cstdint>
#include <cstring>
#include <string>

#include "args.h"
#include "beton_native.h"
#include "errors.h"

namespace beton {
namespace {

// Identity values, uint8 out: a mirror and/or a layout change only.
void CopyPixels(const uint8_t* src, uint8_t* dst, int h, int w, int c, bool flip, bool chw) {
  const size_t plane = static_cast<size_t>(h) * w;
  const size_t row_bytes = static_cast<size_t>(w) * c;
  for (int y = 0; y < h; y++) {
    const uint8_t* s = src + y * row_bytes;
    if (!chw) {
      uint8_t* d = dst + y * row_bytes;
      if (!flip) {
        std::memcpy(d, s, row_bytes);
        continue;
      }
      for (int x = 0; x < w; x++) {
        const uint8_t* p = s + static_cast<size_t>(w - 1 - x) * c;
        for (int k = 0; k < c; k++) d[x * c + k] = p[k];
      }
      continue;
    }
    uint8_t* d = dst + static_cast<size_t>(y) * w;
    if (c == 3) {
      uint8_t* r = d;
      uint8_t* g = d + plane;
      uint8_t* b = d + 2 * plane;
      if (flip) {
        for (int x = 0; x < w; x++) {
          const uint8_t* p = s + (w - 1 - x) * 3;
          r[x] = p[0];
          g[x] = p[1];
          b[x] = p[2];
        }
      } else {
        for (int x = 0; x < w; x++) {
          const uint8_t* p = s + x * 3;
          r[x] = p[0];
          g[x] = p[1];
          b[x] = p[2];
        }
      }
      continue;
    }
    for (int x = 0; x < w; x++) {
      const uint8_t* p = s + static_cast<size_t>(flip ? w - 1 - x : x) * c;
      for (int k = 0; k < c; k++) d[k * plane + x] = p[k];
    }
  }
}

// Values through the table: entry (k, v) of `lut` is E bytes at (k*256+v)*E.
template <size_t E>
void MapPixels(const uint8_t* src, uint8_t* dst, const uint8_t* lut, int h, int w, int c,
               bool flip, bool chw) {
  const size_t plane = static_cast<size_t>(h) * w;
  for (int y = 0; y < h; y++) {
    const uint8_t* s = src + static_cast<size_t>(y) * w * c;
    for (int x = 0; x < w; x++) {
      const uint8_t* p = s + static_cast<size_t>(flip ? w - 1 - x : x) * c;
      const size_t pixel = static_cast<size_t>(y) * w + x;
      for (int k = 0; k < c; k++) {
        const size_t out = chw ? k * plane + pixel : pixel * c + k;
        std::memcpy(dst + out * E, lut + (static_cast<size_t>(k) * 256 + p[k]) * E, E);
      }
    }
  }
}

}  // namespace

// mapPixels(src, dst, lut | null, height, width, channels, elemBytes, flip, chw)
Napi::Value MapPixelsU8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr int64_t kMaxSide = 1 << 20;
  ByteView src = RequireBytes(info, 0, "src");
  ByteView dst = RequireBytes(info, 1, "dst");
  bool has_lut = info.Length() > 2 && !info[2].IsNull() && !info[2].IsUndefined();
  ByteView lut = has_lut ? RequireBytes(info, 2, "lut") : ByteView{nullptr, 0};
  int h = static_cast<int>(RequireInteger(info, 3, "height", 1, kMaxSide));
  int w = static_cast<int>(RequireInteger(info, 4, "width", 1, kMaxSide));
  int c = static_cast<int>(RequireInteger(info, 5, "channels", 1, 16));
  int e = static_cast<int>(RequireInteger(info, 6, "elemBytes", 1, 8));
  bool flip = OptionalBoolean(info, 7, false);
  bool chw = OptionalBoolean(info, 8, false);
  if (e != 1 && e != 2 && e != 4 && e != 8) throw Napi::RangeError::New(env, "elemBytes must be 1, 2, 4 or 8");
  if (!has_lut && e != 1) throw Napi::RangeError::New(env, "without a table the output is uint8 (elemBytes 1)");
  const size_t n = static_cast<size_t>(h) * w * c;
  if (n > (size_t{1} << 31)) throw Napi::RangeError::New(env, "image too large (over 2 GiB)");
  if (src.length < n) throw MakeError(env, kErrBufferSize, "src is smaller than height*width*channels");
  if (dst.length < n * e) throw MakeError(env, kErrBufferSize, "dst is smaller than height*width*channels*elemBytes");
  if (has_lut && lut.length < static_cast<size_t>(c) * 256 * e) {
    throw MakeError(env, kErrBufferSize, "lut is smaller than channels*256*elemBytes");
  }
  if (src.data == nullptr || dst.data == nullptr) return env.Undefined();
  // In place would read pixels already overwritten (mirror, CHW): refuse overlap.
  if (dst.data < src.data + n && src.data < dst.data + n * e) {
    throw Napi::RangeError::New(env, "src and dst must not overlap");
  }
  if (!has_lut) {
    CopyPixels(src.data, dst.data, h, w, c, flip, chw);
  } else if (e == 1) {
    MapPixels<1>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else if (e == 2) {
    MapPixels<2>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else if (e == 4) {
    MapPixels<4>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else {
    MapPixels<8>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  }
  return env.Undefined();
}

}  // namespace beton

// The beton_turbo addon: JPEG decoding through a libturbojpeg loaded at run
// time (turbo_library.cc) and crop-and-resize of raw RGB. A separate addon
// from beton_native so that it links no JPEG library at all: the only
// libjpeg-turbo it uses is the one JS points turboLoad at.
//
// Every export is synchronous and runs on the calling thread; worker_threads
// each load their own instance of this addon and decode in parallel.

#include <napi.h>

#include <cstdint>
#include <string>

#include "args.h"
#include "errors.h"
#include "guard.h"
#include "resize_core.h"
#include "turbo_decode.h"
#include "turbo_library.h"

namespace beton {
namespace {

constexpr int64_t kMaxSide = 1 << 20;  // keeps every int index below 2^31

Napi::Object LibraryInfo(Napi::Env env, const TurboLibrary* lib) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("version", Napi::String::New(env, lib->version));
  result.Set("build", Napi::String::New(env, lib->build));
  result.Set("api", Napi::Number::New(env, ActiveTurboApi()));
  result.Set("hasTurboJpeg3", Napi::Boolean::New(env, lib->has_tj3));
  result.Set("path", Napi::String::New(env, lib->resolved_path));
  result.Set("requestedPath", Napi::String::New(env, lib->requested_path));
  Napi::Array factors = Napi::Array::New(env, lib->downscale_factors.size());
  for (size_t i = 0; i < lib->downscale_factors.size(); i++) {
    const tj::ScalingFactor f = lib->downscale_factors[i];
    factors.Set(static_cast<uint32_t>(i),
                Napi::String::New(env, std::to_string(f.num) + "/" + std::to_string(f.denom)));
  }
  result.Set("scalingFactors", factors);
  return result;
}

[[noreturn]] void ThrowResult(Napi::Env env, const TurboResult& result) {
  switch (result.status) {
    case TurboStatus::kNotLoaded:
      throw MakeError(env, kErrLoad, result.message);
    case TurboStatus::kJpegWarning:
      throw MakeError(env, kErrJpegWarning, result.message);
    case TurboStatus::kBufferTooSmall:
      throw MakeError(env, kErrBufferSize, result.message);
    case TurboStatus::kBadCrop:
    case TurboStatus::kTooLarge:
      throw Napi::RangeError::New(env, result.message);
    case TurboStatus::kJpegError:
    case TurboStatus::kOk:
    default:
      throw MakeError(env, kErrJpeg, result.message);
  }
}

// turboLoad(libPath) -> info; loads once per process.
Napi::Value TurboLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = RequireString(info, 0, "libPath");
  if (path.empty() || path.find('\0') != std::string::npos) {
    throw Napi::TypeError::New(env, "libPath must be a non-empty path");
  }
  std::string error;
  const TurboLibrary* lib = LoadTurboLibrary(path, &error);
  if (lib == nullptr) throw MakeError(env, kErrLoad, error);
  return LibraryInfo(env, lib);
}

// turboLoaded() -> info | null
Napi::Value TurboLoaded(const Napi::CallbackInfo& info) {
  const TurboLibrary* lib = LoadedTurboLibrary();
  if (lib == nullptr) return info.Env().Null();
  return LibraryInfo(info.Env(), lib);
}

// turboUseApi(2 | 3) -> boolean. Process-wide; for testing the TurboJPEG 2 path.
Napi::Value TurboUseApi(const Napi::CallbackInfo& info) {
  int api = static_cast<int>(RequireInteger(info, 0, "api", 2, 3));
  return Napi::Boolean::New(info.Env(), SetTurboApi(api));
}

// turboHeader(src) -> { width, height, subsamp, colorspace }
Napi::Value TurboHeaderInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  TurboHeader header;
  TurboResult result = TurboReadHeader(src.data, src.length, &header);
  if (result.status != TurboStatus::kOk) ThrowResult(env, result);
  Napi::Object out = Napi::Object::New(env);
  out.Set("width", Napi::Number::New(env, header.width));
  out.Set("height", Napi::Number::New(env, header.height));
  out.Set("subsamp", Napi::Number::New(env, header.subsamp));
  const char* colorspace = header.colorspace >= 0 && header.colorspace < tj::kNumColorspaces
                               ? tj::kColorspaceNames[header.colorspace]
                               : "unknown";
  out.Set("colorSpace", Napi::String::New(env, colorspace));
  return out;
}

// Optional trailing (expectWidth, expectHeight): the size the .beton metadata gives the
// image; a JPEG of another size fails with NATIVE_JPEG before anything is decoded.
ExpectedSize OptionalExpectedSize(const Napi::CallbackInfo& info, size_t index) {
  ExpectedSize expect;
  if (index >= info.Length() || info[index].IsUndefined()) return expect;
  expect.width = static_cast<int>(RequireInteger(info, index, "expectWidth", 1, 65535));
  expect.height = static_cast<int>(RequireInteger(info, index + 1, "expectHeight", 1, 65535));
  return expect;
}

// turboDecodeFull(src, dst, fastDct, strict, expectWidth?, expectHeight?) -> { width, height, warnings }
Napi::Value TurboDecodeFullRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  ByteView dst = RequireBytes(info, 1, "dst");
  bool fast_dct = OptionalBoolean(info, 2, true);
  bool strict = OptionalBoolean(info, 3, false);
  ExpectedSize expect = OptionalExpectedSize(info, 4);
  TurboResult result =
      TurboDecodeFull(src.data, src.length, dst.data, dst.length, fast_dct, strict, expect);
  if (result.status != TurboStatus::kOk) ThrowResult(env, result);
  Napi::Object out = Napi::Object::New(env);
  out.Set("width", Napi::Number::New(env, result.width));
  out.Set("height", Napi::Number::New(env, result.height));
  out.Set("warnings", Napi::Number::New(env, result.warnings));
  return out;
}

// turboDecodeCropResize(src, dst, x, y, w, h, outW, outH, fastDct, scaling, strict,
//                       expectWidth?, expectHeight?)
//   -> the DCT scaling factor used (a number, e.g. 0.25)
Napi::Value TurboDecodeCropResizeRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  ByteView dst = RequireBytes(info, 1, "dst");
  CropRect crop;
  crop.x = static_cast<int>(RequireInteger(info, 2, "x", 0, 65535));
  crop.y = static_cast<int>(RequireInteger(info, 3, "y", 0, 65535));
  crop.w = static_cast<int>(RequireInteger(info, 4, "w", 1, 65535));
  crop.h = static_cast<int>(RequireInteger(info, 5, "h", 1, 65535));
  int out_w = static_cast<int>(RequireInteger(info, 6, "outW", 1, 65535));
  int out_h = static_cast<int>(RequireInteger(info, 7, "outH", 1, 65535));
  bool fast_dct = OptionalBoolean(info, 8, true);
  bool scaling = OptionalBoolean(info, 9, true);
  bool strict = OptionalBoolean(info, 10, false);
  ExpectedSize expect = OptionalExpectedSize(info, 11);
  TurboResult result = TurboDecodeCropResize(src.data, src.length, crop, dst.data, dst.length,
                                             out_w, out_h, fast_dct, scaling, strict, expect);
  if (result.status != TurboStatus::kOk) ThrowResult(env, result);
  return Napi::Number::New(env, static_cast<double>(result.scale.num) / result.scale.denom);
}

// turboChooseScale(cropW, cropH, outW, outH) -> the factor decodeCropResize would use.
Napi::Value TurboChooseScale(const Napi::CallbackInfo& info) {
  int crop_w = static_cast<int>(RequireInteger(info, 0, "cropW", 1, 65535));
  int crop_h = static_cast<int>(RequireInteger(info, 1, "cropH", 1, 65535));
  int out_w = static_cast<int>(RequireInteger(info, 2, "outW", 1, 65535));
  int out_h = static_cast<int>(RequireInteger(info, 3, "outH", 1, 65535));
  tj::ScalingFactor f = ChooseScalingFactor(crop_w, crop_h, out_w, out_h, true);
  return Napi::Number::New(info.Env(), static_cast<double>(f.num) / f.denom);
}

// cropResizeRGB(src, srcW, srcH, x, y, w, h, dst, outW, outH)
Napi::Value CropResizeRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  int src_w = static_cast<int>(RequireInteger(info, 1, "srcWidth", 1, kMaxSide));
  int src_h = static_cast<int>(RequireInteger(info, 2, "srcHeight", 1, kMaxSide));
  int x = static_cast<int>(RequireInteger(info, 3, "x", 0, kMaxSide));
  int y = static_cast<int>(RequireInteger(info, 4, "y", 0, kMaxSide));
  int w = static_cast<int>(RequireInteger(info, 5, "w", 1, kMaxSide));
  int h = static_cast<int>(RequireInteger(info, 6, "h", 1, kMaxSide));
  ByteView dst = RequireBytes(info, 7, "dst");
  int out_w = static_cast<int>(RequireInteger(info, 8, "outW", 1, kMaxSide));
  int out_h = static_cast<int>(RequireInteger(info, 9, "outH", 1, kMaxSide));

  if (static_cast<int64_t>(x) + w > src_w || static_cast<int64_t>(y) + h > src_h) {
    throw Napi::RangeError::New(env, "crop does not lie inside the source image");
  }
  const size_t src_needed = static_cast<size_t>(src_w) * src_h * 3;
  const size_t dst_needed = static_cast<size_t>(out_w) * out_h * 3;
  if (src_needed > (size_t{1} << 31) || dst_needed > (size_t{1} << 31)) {
    throw Napi::RangeError::New(env, "image too large (over 2 GiB)");
  }
  if (src.length < src_needed || dst.length < dst_needed) {
    throw MakeError(env, kErrBufferSize,
                    src.length < src_needed ? "src is smaller than srcWidth*srcHeight*3"
                                            : "dst is smaller than outW*outH*3");
  }
  const size_t stride = static_cast<size_t>(src_w) * 3;
  const uint8_t* origin = src.data + static_cast<size_t>(y) * stride + static_cast<size_t>(x) * 3;
  // The output must not overlap the rectangle being read.
  if (dst.data < src.data + src_needed && src.data < dst.data + dst_needed) {
    throw Napi::RangeError::New(env, "dst must not overlap src");
  }
  ResizeInterAreaRGB(origin, stride, w, h, dst.data, out_w, out_h);
  return env.Undefined();
}

}  // namespace
}  // namespace beton

namespace {

Napi::Object InitBetonTurbo(Napi::Env env, Napi::Object exports) {
  using namespace beton;
  ExportFunction<TurboLoad>(env, exports, "turboLoad");
  ExportFunction<TurboLoaded>(env, exports, "turboLoaded");
  ExportFunction<TurboUseApi>(env, exports, "turboUseApi");
  ExportFunction<TurboHeaderInfo>(env, exports, "turboHeader");
  ExportFunction<TurboDecodeFullRGB>(env, exports, "turboDecodeFull");
  ExportFunction<TurboDecodeCropResizeRGB>(env, exports, "turboDecodeCropResize");
  ExportFunction<TurboChooseScale>(env, exports, "turboChooseScale");
  ExportFunction<CropResizeRGB>(env, exports, "cropResizeRGB");
  return exports;
}

}  // namespace

// Every export goes through Guarded (guard.h): no C++ exception may reach V8,
// e.g. a Napi::Error while worker.terminate() stops the thread mid-decode.
BETON_GUARDED_MODULE(beton_turbo, InitBetonTurbo)

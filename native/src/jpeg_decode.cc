// JPEG header inspection and decoding to packed RGB.
//
// The decoder is set up the way TurboJPEG's tjDecompress2(pixelFormat =
// TJPF_RGB, flags = TJFLAG_FASTDCT) sets up libjpeg, because that call is how
// FFCV decodes every JPEG sample and the goal is bit-identical pixels:
//   out_color_space = JCS_EXT_RGB, dct_method = JDCT_IFAST (JDCT_FASTEST),
//   scale 1/1, fancy upsampling left at its default (on).
// With fastDct = false the accurate integer IDCT (JDCT_ISLOW) is used, which
// matches what PIL / most other libjpeg users produce.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "args.h"
#include "beton_native.h"
#include "errors.h"
#include "jpeg_error.h"

namespace beton {
namespace {

struct HeaderInfo {
  unsigned width;
  unsigned height;
  int components;
  J_COLOR_SPACE color_space;
  bool progressive;
};

enum class DecodeStatus { kOk, kLibjpegError, kDestinationTooSmall, kWarning };

// Rows handed to libjpeg per jpeg_read_scanlines call. libjpeg emits at most
// max_v_samp_factor * DCT scale rows per call anyway; a small fixed array
// avoids a heap allocation that a longjmp could leak.
constexpr unsigned kRowsPerCall = 16;

// Both helpers below drive libjpeg under setjmp; per jpeg_error.h they hold
// only trivially destructible locals.

bool ReadHeader(const uint8_t* src, size_t length, HeaderInfo* out,
                JpegErrorManager* errors) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);  // so destroy is safe if create fails
  cinfo.err = InitJpegErrorManager(errors);
  if (setjmp(errors->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(length));
  jpeg_read_header(&cinfo, TRUE);
  out->width = cinfo.image_width;
  out->height = cinfo.image_height;
  out->components = cinfo.num_components;
  out->color_space = cinfo.jpeg_color_space;
  out->progressive = cinfo.progressive_mode != FALSE;
  jpeg_destroy_decompress(&cinfo);
  return true;
}

DecodeStatus DecodeRGB(const uint8_t* src, size_t length, uint8_t* dst,
                       size_t dst_length, bool fast_dct, bool strict,
                       unsigned* width, unsigned* height,
                       JpegErrorManager* errors) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = InitJpegErrorManager(errors);
  if (setjmp(errors->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return DecodeStatus::kLibjpegError;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(length));
  jpeg_read_header(&cinfo, TRUE);

  cinfo.out_color_space = JCS_EXT_RGB;
  cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  jpeg_calc_output_dimensions(&cinfo);
  *width = cinfo.output_width;
  *height = cinfo.output_height;
  // Dimensions are at most 65500 each, so this cannot overflow 64 bits.
  const size_t stride = static_cast<size_t>(cinfo.output_width) * 3;
  if (stride * cinfo.output_height > dst_length) {
    jpeg_destroy_decompress(&cinfo);
    return DecodeStatus::kDestinationTooSmall;
  }

  jpeg_start_decompress(&cinfo);
  JSAMPROW rows[kRowsPerCall];
  while (cinfo.output_scanline < cinfo.output_height) {
    unsigned first = cinfo.output_scanline;
    unsigned count = std::min(kRowsPerCall, cinfo.output_height - first);
    for (unsigned i = 0; i < count; i++) {
      rows[i] = dst + static_cast<size_t>(first + i) * stride;
    }
    jpeg_read_scanlines(&cinfo, rows, count);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return strict && errors->warnings > 0 ? DecodeStatus::kWarning : DecodeStatus::kOk;
}

const char* ColorSpaceName(J_COLOR_SPACE space) {
  switch (space) {
    case JCS_GRAYSCALE:
      return "Grayscale";
    case JCS_YCbCr:
      return "YCbCr";
    case JCS_RGB:
      return "RGB";
    case JCS_CMYK:
      return "CMYK";
    case JCS_YCCK:
      return "YCCK";
    default:
      return "unknown";
  }
}

}  // namespace

Napi::Value JpegInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");

  JpegErrorManager errors;
  HeaderInfo header;
  if (!ReadHeader(src.data, src.length, &header, &errors)) {
    throw MakeError(env, kErrJpeg, std::string("invalid JPEG: ") + errors.message);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("width", Napi::Number::New(env, header.width));
  result.Set("height", Napi::Number::New(env, header.height));
  result.Set("components", Napi::Number::New(env, header.components));
  result.Set("colorSpace", Napi::String::New(env, ColorSpaceName(header.color_space)));
  result.Set("progressive", Napi::Boolean::New(env, header.progressive));
  return result;
}

Napi::Value JpegDecodeRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  ByteView dst = RequireBytes(info, 1, "dst");
  bool fast_dct = OptionalBoolean(info, 2, false);
  bool strict = OptionalBoolean(info, 3, false);

  JpegErrorManager errors;
  unsigned width = 0;
  unsigned height = 0;
  switch (DecodeRGB(src.data, src.length, dst.data, dst.length, fast_dct, strict,
                    &width, &height, &errors)) {
    case DecodeStatus::kOk:
      break;
    case DecodeStatus::kLibjpegError:
      throw MakeError(env, kErrJpeg, std::string("invalid JPEG: ") + errors.message);
    case DecodeStatus::kDestinationTooSmall:
      throw MakeError(env, kErrBufferSize,
                      "dst holds " + std::to_string(dst.length) + " bytes but a " +
                          std::to_string(width) + "x" + std::to_string(height) +
                          " RGB image needs " +
                          std::to_string(static_cast<size_t>(width) * height * 3));
    case DecodeStatus::kWarning:
      throw MakeError(env, kErrJpegWarning,
                      std::string("corrupt JPEG: ") + errors.first_warning);
  }

  Napi::Object result = Napi::Object::New(env);
  result.Set("width", Napi::Number::New(env, width));
  result.Set("height", Napi::Number::New(env, height));
  result.Set("warnings", Napi::Number::New(env, errors.warnings));
  if (errors.warnings > 0) {
    result.Set("warning", Napi::String::New(env, errors.first_warning));
  }
  return result;
}

}  // namespace beton

// See turbo_decode.h.
//
// TurboJPEG 3 path (libjpeg-turbo 3.x): tj3DecompressHeader, then
// tj3SetScalingFactor + tj3SetCroppingRegion so that libjpeg-turbo decodes
// only the iMCU columns and the rows that cover the crop, at the reduced
// size. The region's left edge must sit on a scaled iMCU boundary, so it is
// widened to the left and the extra columns are skipped by the resize.
//
// TurboJPEG 2 path (a 2.x library, which has no cropping region): the whole
// image is decoded at the chosen scale and the crop is taken in the resize.
//
// Both write the decoded region into a thread-local scratch buffer, then
// area-resize the crop into dst (resize_core.cc), unless the region is
// exactly the output, in which case TurboJPEG decodes straight into dst.

#include "turbo_decode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "resize_core.h"
#include "turbo_library.h"

namespace beton {
namespace {

// Above this, a thread's scratch buffer is released after each call instead
// of being kept for the next image.
constexpr size_t kKeepScratchBytes = size_t{64} << 20;
constexpr size_t kMaxRegionBytes = size_t{1} << 31;
// Columns kept between the crop and the edges of the decoded region: the
// region's outermost columns are upsampled as if they were image edges
// (fancy h2 upsampling replicates the edge chroma sample), so they differ from
// a whole-image decode; one column on each side keeps the crop exact.
constexpr int kLeftMargin = 1;
constexpr int kRightMargin = 1;

struct ThreadState {
  const TurboLibrary* lib = nullptr;
  tj::Handle handle = nullptr;
  std::vector<uint8_t> scratch;

  ~ThreadState() {
    if (handle == nullptr) return;
    if (lib->has_tj3) {
      lib->tj3_destroy(handle);
    } else {
      lib->tj_destroy(handle);
    }
  }
};

thread_local ThreadState t_state;

// The calling thread's decompressor, created on first use.
tj::Handle ThreadHandle(const TurboLibrary* lib, std::string* error) {
  if (t_state.handle != nullptr) return t_state.handle;
  tj::Handle handle = lib->has_tj3 ? lib->tj3_init(tj::kInitDecompress) : lib->tj_init_decompress();
  if (handle == nullptr) {
    const char* reason = lib->has_tj3 ? lib->tj3_get_error_str(nullptr)
                                      : lib->tj_get_error_str2(nullptr);
    *error = std::string("cannot create a TurboJPEG decompressor: ") +
             (reason != nullptr ? reason : "unknown error");
    return nullptr;
  }
  t_state.lib = lib;
  t_state.handle = handle;
  return handle;
}

// Destroys the calling thread's decompressor; the next call creates a new
// one. Needed after a failure: when TurboJPEG's header reader fails it does
// not reset libjpeg (tj3DecompressHeader returns straight from its setjmp),
// and the next image would then be read as a continuation of the bad one
// ("two SOF markers").
void ResetThreadHandle() {
  if (t_state.handle == nullptr) return;
  if (t_state.lib->has_tj3) {
    t_state.lib->tj3_destroy(t_state.handle);
  } else {
    t_state.lib->tj_destroy(t_state.handle);
  }
  t_state.handle = nullptr;
}

uint8_t* Scratch(size_t bytes) {
  if (t_state.scratch.size() < bytes) t_state.scratch.resize(bytes);
  return t_state.scratch.data();
}

void TrimScratch() {
  if (t_state.scratch.capacity() > kKeepScratchBytes) {
    std::vector<uint8_t>().swap(t_state.scratch);
  }
}

// libjpeg's warning messages (jerror.h, JWRN_*). libjpeg prints only the
// first warning and then every fatal error, so a message that is none of
// these means the call failed.
bool IsWarningMessage(const std::string& text) {
  static const char* const kPrefixes[] = {
      "Corrupt JPEG data",                   // JWRN_EXTRANEOUS_DATA, _HIT_MARKER, _HUFF_BAD_CODE, ...
      "Premature end of JPEG file",          // JWRN_JPEG_EOF
      "Warning: ",                           // JWRN_JFIF_MAJOR, thumbnail warnings
      "Invalid SOS parameters for sequential JPEG",  // JWRN_NOT_SEQUENTIAL
      "Inconsistent progression sequence",   // JWRN_BOGUS_PROGRESSION
      "Unknown Adobe color transform code",  // JWRN_ADOBE_XFORM
      "Application transferred too many scanlines",  // JWRN_TOO_MUCH_DATA
  };
  for (const char* prefix : kPrefixes) {
    if (text.compare(0, std::strlen(prefix), prefix) == 0) return true;
  }
  return false;
}

// A TurboJPEG call returned -1. TurboJPEG also returns -1 for warnings
// (corrupt data it recovered from by substituting grey), after finishing the
// operation; those are accepted unless `strict`. Returns true to go on.
//
// TurboJPEG's error code says "warning" whenever a warning happened during
// the call, even when a fatal error followed (e.g. extraneous bytes, then
// "JPEG datastream contains no image"), so the message decides as well.
bool AcceptFailure(const TurboLibrary* lib, int api, tj::Handle handle, bool strict,
                   TurboResult* result) {
  int code = 1;  // TJERR_FATAL when the library cannot tell
  const char* message = nullptr;
  if (api == 3) {
    if (lib->tj3_get_error_code != nullptr) code = lib->tj3_get_error_code(handle);
    message = lib->tj3_get_error_str(handle);
  } else {
    code = lib->tj_get_error_code(handle);
    message = lib->tj_get_error_str2(handle);
  }
  std::string text = message != nullptr ? message : "unknown TurboJPEG error";
  // TurboJPEG prefixes some messages with the function name ("tj3Decompress8(): ").
  std::string bare = text;
  const size_t colon = bare.find("(): ");
  if (colon != std::string::npos && bare.compare(0, 2, "tj") == 0) bare = bare.substr(colon + 4);
  if (code == tj::kErrWarning && IsWarningMessage(bare)) {
    result->warnings++;
    if (!strict) return true;
    result->status = TurboStatus::kJpegWarning;
    result->message = "corrupt JPEG: " + text;
  } else {
    result->status = TurboStatus::kJpegError;
    result->message = "invalid JPEG: " + text;
  }
  ResetThreadHandle();
  return false;
}

bool Fail(TurboResult* result, TurboStatus status, std::string message) {
  result->status = status;
  result->message = std::move(message);
  return false;
}

// Shared prologue: library, handle, header. Returns false with `result` set.
bool Begin(const uint8_t* src, size_t length, bool strict, const TurboLibrary** lib_out,
           int* api_out, tj::Handle* handle_out, TurboHeader* header, TurboResult* result) {
  const TurboLibrary* lib = LoadedTurboLibrary();
  if (lib == nullptr) {
    return Fail(result, TurboStatus::kNotLoaded,
                "libturbojpeg is not loaded (call turboLoad first)");
  }
  std::string error;
  tj::Handle handle = ThreadHandle(lib, &error);
  if (handle == nullptr) return Fail(result, TurboStatus::kJpegError, error);
  const int api = ActiveTurboApi();
  if (src == nullptr || length == 0) {
    return Fail(result, TurboStatus::kJpegError, "invalid JPEG: empty input");
  }

  if (api == 3) {
    if (lib->tj3_decompress_header(handle, src, length) != 0 &&
        !AcceptFailure(lib, api, handle, strict, result)) {
      return false;
    }
    header->width = lib->tj3_get(handle, tj::kParamJpegWidth);
    header->height = lib->tj3_get(handle, tj::kParamJpegHeight);
    header->subsamp = lib->tj3_get(handle, tj::kParamSubsamp);
    header->colorspace = lib->tj3_get(handle, tj::kParamColorspace);
  } else {
    int width = 0, height = 0, subsamp = tj::kSampUnknown, colorspace = -1;
    if (lib->tj_decompress_header3(handle, src, static_cast<unsigned long>(length), &width,
                                   &height, &subsamp, &colorspace) != 0 &&
        !AcceptFailure(lib, api, handle, strict, result)) {
      return false;
    }
    header->width = width;
    header->height = height;
    header->subsamp = subsamp;
    header->colorspace = colorspace;
  }
  if (header->width < 1 || header->height < 1) {
    return Fail(result, TurboStatus::kJpegError, "invalid JPEG: no image in the datastream");
  }
  result->width = header->width;
  result->height = header->height;
  *lib_out = lib;
  *api_out = api;
  *handle_out = handle;
  return true;
}

// False (with `result` set) when `expect` is given and the JPEG's size differs.
bool CheckExpectedSize(const TurboHeader& header, ExpectedSize expect, TurboResult* result) {
  if (expect.width <= 0 || expect.height <= 0) return true;
  if (header.width == expect.width && header.height == expect.height) return true;
  return Fail(result, TurboStatus::kJpegError,
              "JPEG is " + std::to_string(header.width) + "x" + std::to_string(header.height) +
                  " but the metadata says " + std::to_string(expect.width) + "x" +
                  std::to_string(expect.height));
}

// Whether a frame header (SOFn) comes before the first scan: walks the
// marker segments from SOI.
bool HasFrameHeader(const uint8_t* src, size_t length) {
  if (length < 4 || src[0] != 0xFF || src[1] != 0xD8) return false;
  size_t pos = 2;
  while (pos + 1 < length) {
    if (src[pos] != 0xFF) return false;
    uint8_t marker = src[pos + 1];
    if (marker == 0xFF) {  // fill byte
      pos++;
      continue;
    }
    pos += 2;
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length
    if (marker == 0xD9 || marker == 0xDA) return false;                   // EOI, SOS
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
                     marker != 0xCC;
    if (sof) return true;
    if (pos + 1 >= length) return false;
    pos += (static_cast<size_t>(src[pos]) << 8) | src[pos + 1];
  }
  return false;
}

bool DecodeCropResize(const uint8_t* src, size_t length, CropRect crop, uint8_t* dst,
                      size_t dst_length, int out_w, int out_h, bool fast_dct,
                      bool allow_scaling, bool strict, ExpectedSize expect,
                      TurboResult* result) {
  const TurboLibrary* lib = nullptr;
  int api = 0;
  tj::Handle handle = nullptr;
  TurboHeader header;
  if (!Begin(src, length, strict, &lib, &api, &handle, &header, result)) return false;
  if (!CheckExpectedSize(header, expect, result)) return false;

  if (crop.x < 0 || crop.y < 0 || crop.w < 1 || crop.h < 1 ||
      static_cast<long long>(crop.x) + crop.w > header.width ||
      static_cast<long long>(crop.y) + crop.h > header.height) {
    return Fail(result, TurboStatus::kBadCrop,
                "crop (x " + std::to_string(crop.x) + ", y " + std::to_string(crop.y) +
                    ", w " + std::to_string(crop.w) + ", h " + std::to_string(crop.h) +
                    ") does not lie inside the " + std::to_string(header.width) + "x" +
                    std::to_string(header.height) + " image");
  }
  const size_t needed = static_cast<size_t>(out_w) * out_h * 3;
  if (dst_length < needed) {
    result->needed = needed;
    return Fail(result, TurboStatus::kBufferTooSmall,
                "dst holds " + std::to_string(dst_length) + " bytes but a " +
                    std::to_string(out_w) + "x" + std::to_string(out_h) +
                    " RGB image needs " + std::to_string(needed));
  }

  const tj::ScalingFactor scale = ChooseScalingFactor(crop.w, crop.h, out_w, out_h, allow_scaling);
  result->scale = scale;
  const int scaled_w = tj::Scaled(header.width, scale);
  const int scaled_h = tj::Scaled(header.height, scale);
  const bool full_scale = scale.num == scale.denom;
  // The crop in scaled pixels: [fx, fx + fw) x [fy, fy + fh), fractional
  // when s < 1 (s is 1/2^k, so these doubles are exact), and the whole
  // scaled pixels [x0, x1) x [y0, y1) that cover it.
  const double factor = static_cast<double>(scale.num) / scale.denom;
  const double fx = crop.x * factor;
  const double fy = crop.y * factor;
  const double fw = crop.w * factor;
  const double fh = crop.h * factor;
  const int x0 = std::min(static_cast<int>(std::floor(fx)), scaled_w - 1);
  const int y0 = std::min(static_cast<int>(std::floor(fy)), scaled_h - 1);
  const int x1 = std::max(std::min(static_cast<int>(std::ceil(fx + fw)), scaled_w), x0 + 1);
  const int y1 = std::max(std::min(static_cast<int>(std::ceil(fy + fh)), scaled_h), y0 + 1);

  // What TurboJPEG writes: region_w x region_h pixels whose top-left pixel
  // is (left, top) of the scaled image.
  int region_w = scaled_w;
  int region_h = scaled_h;
  int left = 0;
  int top = 0;
  bool cropped = false;

  if (api == 3) {
    lib->tj3_set(handle, tj::kParamStopOnWarning, 0);
    lib->tj3_set(handle, tj::kParamFastUpsample, 0);
    lib->tj3_set(handle, tj::kParamFastDct, fast_dct ? 1 : 0);
    if (lib->tj3_set_scaling_factor(handle, scale) != 0) {
      AcceptFailure(lib, api, handle, true, result);
      return false;
    }
    if (header.subsamp >= 0 && header.subsamp < tj::kNumSamp) {
      // The left edge must be a multiple of the scaled iMCU width; both
      // edges keep a margin (kLeftMargin) so the crop decodes exactly like
      // the same pixels of a whole-image decode at this scale.
      const int align = tj::Scaled(tj::kMcuWidth[header.subsamp], scale);
      int region_left = x0 - x0 % align;
      if (region_left > 0 && x0 - region_left < kLeftMargin) region_left -= align;
      const int region_right = std::min(scaled_w, x1 + kRightMargin);
      const tj::Region region{region_left, y0, region_right - region_left, y1 - y0};
      // Fails for images TurboJPEG cannot partially decode (lossless JPEG);
      // those are decoded whole below.
      cropped = lib->tj3_set_cropping_region(handle, region) == 0;
      if (cropped) {
        region_w = region.w;
        region_h = region.h;
        left = region.x;
        top = region.y;
      }
    }
    if (!cropped && lib->tj3_set_cropping_region(handle, tj::Region{0, 0, 0, 0}) != 0) {
      AcceptFailure(lib, api, handle, true, result);
      return false;
    }
  }

  const size_t region_bytes = static_cast<size_t>(region_w) * region_h * 3;
  if (region_bytes > kMaxRegionBytes) {
    return Fail(result, TurboStatus::kTooLarge,
                "the decoded region (" + std::to_string(region_w) + "x" +
                    std::to_string(region_h) + ") would exceed 2 GiB");
  }
  // TurboJPEG can write straight into dst when the region is the output.
  const bool direct = left == x0 && top == y0 && region_w == out_w && region_h == out_h &&
                      fx == x0 && fy == y0 && fw == out_w && fh == out_h;
  uint8_t* buffer = direct ? dst : Scratch(region_bytes);
  const int pitch = region_w * 3;

  int rc;
  if (api == 3) {
    rc = lib->tj3_decompress8(handle, src, length, buffer, pitch, tj::kPixelFormatRGB);
  } else {
    // tjDecompress2 picks the largest factor whose output fits in the given
    // size: exactly `scale`'s output size.
    rc = lib->tj_decompress2(handle, src, static_cast<unsigned long>(length), buffer, scaled_w,
                             pitch, scaled_h, tj::kPixelFormatRGB,
                             fast_dct ? tj::kFlagFastDct : 0);
  }
  if (rc != 0 && !AcceptFailure(lib, api, handle, strict, result)) {
    TrimScratch();
    return false;
  }

  if (!direct) {
    if (full_scale) {
      // Whole pixels: exactly cv2.resize(INTER_AREA) of the crop (FFCV).
      const uint8_t* origin = buffer + (static_cast<size_t>(y0 - top) * region_w + (x0 - left)) * 3;
      ResizeInterAreaRGB(origin, static_cast<size_t>(pitch), x1 - x0, y1 - y0, dst, out_w, out_h);
    } else {
      // Crop edges between scaled pixels: area average with partial pixels.
      ResizeAreaSubpixelRGB(buffer, static_cast<size_t>(pitch), region_w, region_h, fx - left,
                            fy - top, fw, fh, dst, out_w, out_h);
    }
  }
  TrimScratch();
  return true;
}

bool DecodeFull(const uint8_t* src, size_t length, uint8_t* dst, size_t dst_length,
                bool fast_dct, bool strict, ExpectedSize expect, TurboResult* result) {
  const TurboLibrary* lib = nullptr;
  int api = 0;
  tj::Handle handle = nullptr;
  TurboHeader header;
  if (!Begin(src, length, strict, &lib, &api, &handle, &header, result)) return false;
  if (!CheckExpectedSize(header, expect, result)) return false;

  const size_t needed = static_cast<size_t>(header.width) * header.height * 3;
  if (dst_length < needed) {
    result->needed = needed;
    return Fail(result, TurboStatus::kBufferTooSmall,
                "dst holds " + std::to_string(dst_length) + " bytes but a " +
                    std::to_string(header.width) + "x" + std::to_string(header.height) +
                    " RGB image needs " + std::to_string(needed));
  }

  int rc;
  if (api == 3) {
    lib->tj3_set(handle, tj::kParamStopOnWarning, 0);
    lib->tj3_set(handle, tj::kParamFastUpsample, 0);
    lib->tj3_set(handle, tj::kParamFastDct, fast_dct ? 1 : 0);
    if (lib->tj3_set_scaling_factor(handle, tj::ScalingFactor{1, 1}) != 0 ||
        lib->tj3_set_cropping_region(handle, tj::Region{0, 0, 0, 0}) != 0) {
      AcceptFailure(lib, api, handle, true, result);
      return false;
    }
    rc = lib->tj3_decompress8(handle, src, length, dst, 0, tj::kPixelFormatRGB);
  } else {
    rc = lib->tj_decompress2(handle, src, static_cast<unsigned long>(length), dst, header.width,
                             0, header.height, tj::kPixelFormatRGB,
                             fast_dct ? tj::kFlagFastDct : 0);
  }
  if (rc != 0 && !AcceptFailure(lib, api, handle, strict, result)) return false;
  return true;
}

}  // namespace

tj::ScalingFactor ChooseScalingFactor(int crop_w, int crop_h, int out_w, int out_h,
                                      bool allow_scaling) {
  const tj::ScalingFactor one{1, 1};
  const TurboLibrary* lib = LoadedTurboLibrary();
  if (!allow_scaling || lib == nullptr) return one;
  for (const tj::ScalingFactor& f : lib->downscale_factors) {
    // Only 1/8, 1/4, 1/2 (and 1): libjpeg-turbo has SIMD IDCTs for those.
    // 3/8 ... 7/8 use plain-C IDCTs (and 4:2:0 chroma at 2s): measured on a
    // 512x512 q90 image, 5/8, 3/4 and 7/8 decode 1.3-2.2x *slower* than full
    // scale and 3/8 no faster than 1/2, while 1/2, 1/4 and 1/8 save about
    // 20%, 35% and 50%.
    if (f.num != 1 && f.num != f.denom) continue;
    if (static_cast<long long>(crop_w) * f.num >= static_cast<long long>(out_w) * f.denom &&
        static_cast<long long>(crop_h) * f.num >= static_cast<long long>(out_h) * f.denom) {
      return f;
    }
  }
  return one;
}

TurboResult TurboReadHeader(const uint8_t* src, size_t length, TurboHeader* header) {
  TurboResult result;
  const TurboLibrary* lib = nullptr;
  int api = 0;
  tj::Handle handle = nullptr;
  if (!Begin(src, length, false, &lib, &api, &handle, header, &result)) return result;
  // For a tables-only datastream (no frame), TurboJPEG's header call
  // succeeds without updating the dimensions, which then still describe the
  // thread's previous image. Decoding such data fails anyway; only the
  // header needs this check.
  if (!HasFrameHeader(src, length)) {
    *header = TurboHeader();
    Fail(&result, TurboStatus::kJpegError, "invalid JPEG: JPEG datastream contains no image");
  }
  return result;
}

TurboResult TurboDecodeFull(const uint8_t* src, size_t length, uint8_t* dst, size_t dst_length,
                            bool fast_dct, bool strict, ExpectedSize expect) {
  TurboResult result;
  DecodeFull(src, length, dst, dst_length, fast_dct, strict, expect, &result);
  return result;
}

TurboResult TurboDecodeCropResize(const uint8_t* src, size_t length, CropRect crop,
                                  uint8_t* dst, size_t dst_length, int out_w, int out_h,
                                  bool fast_dct, bool allow_scaling, bool strict,
                                  ExpectedSize expect) {
  TurboResult result;
  DecodeCropResize(src, length, crop, dst, dst_length, out_w, out_h, fast_dct, allow_scaling,
                   strict, expect, &result);
  return result;
}

}  // namespace beton

// JPEG encoding of packed RGB, configured like OpenCV 4.6's JpegEncoder.
//
// FFCV writes JPEG samples with cv2.imencode('.jpg', bgr, [IMWRITE_JPEG_QUALITY, q]).
// OpenCV feeds libjpeg-turbo the BGR rows as JCS_EXT_BGR; the colour
// conversion to YCbCr only depends on which byte is red, green and blue, so
// feeding RGB rows as JCS_RGB produces the same coefficients. The remaining
// settings are what OpenCV does when only the quality is given:
//   jpeg_set_defaults (4:2:0, JFIF APP0, ISLOW forward DCT, standard Huffman
//   tables), restart_interval = 0, jpeg_set_quality(q, force_baseline = TRUE),
//   no progressive mode, no Huffman optimisation.
// Same library + same settings => byte-identical output.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "args.h"
#include "beton_native.h"
#include "errors.h"
#include "jpeg_error.h"

#include <jerror.h>

namespace beton {
namespace {

// A destination manager writing into a malloc'd buffer that doubles when
// full. Plain C memory rather than std::vector: a longjmp out of libjpeg
// would skip a vector's destructor. The caller owns and frees `data`.
struct GrowableDestination {
  jpeg_destination_mgr pub;  // first member: libjpeg only sees this part
  unsigned char* data;
  size_t capacity;
  size_t size;  // bytes of finished output, set by TermDestination
};

GrowableDestination* DestinationOf(j_compress_ptr cinfo) {
  return reinterpret_cast<GrowableDestination*>(cinfo->dest);
}

void InitDestination(j_compress_ptr cinfo) {
  GrowableDestination* dest = DestinationOf(cinfo);
  dest->pub.next_output_byte = dest->data;
  dest->pub.free_in_buffer = dest->capacity;
}

boolean EmptyOutputBuffer(j_compress_ptr cinfo) {
  // libjpeg calls this only once the whole buffer is full, so everything in
  // [0, capacity) is valid output that must be kept.
  GrowableDestination* dest = DestinationOf(cinfo);
  size_t grown = dest->capacity * 2;
  unsigned char* data = static_cast<unsigned char*>(std::realloc(dest->data, grown));
  if (data == nullptr) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 99);
  dest->data = data;
  dest->pub.next_output_byte = data + dest->capacity;
  dest->pub.free_in_buffer = grown - dest->capacity;
  dest->capacity = grown;
  return TRUE;
}

void TermDestination(j_compress_ptr cinfo) {
  GrowableDestination* dest = DestinationOf(cinfo);
  dest->size = dest->capacity - dest->pub.free_in_buffer;
}

// Drives libjpeg under setjmp; per jpeg_error.h it holds only trivially
// destructible locals.
bool EncodeRGB(const uint8_t* rgb, unsigned width, unsigned height, int quality,
               GrowableDestination* dest, JpegErrorManager* errors) {
  jpeg_compress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);  // so destroy is safe if create fails
  cinfo.err = InitJpegErrorManager(errors);
  if (setjmp(errors->jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  dest->pub.init_destination = InitDestination;
  dest->pub.empty_output_buffer = EmptyOutputBuffer;
  dest->pub.term_destination = TermDestination;
  cinfo.dest = &dest->pub;

  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = 3;
  // Must precede jpeg_set_defaults, which derives the JPEG colour space
  // (YCbCr) and the JFIF marker from it.
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  cinfo.restart_interval = 0;
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);

  const size_t stride = static_cast<size_t>(width) * 3;
  while (cinfo.next_scanline < cinfo.image_height) {
    // libjpeg's API is not const-correct; it only reads input rows.
    JSAMPROW row = const_cast<JSAMPROW>(rgb + cinfo.next_scanline * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

struct FreeDeleter {
  void operator()(unsigned char* data) const { std::free(data); }
};

}  // namespace

Napi::Value JpegEncodeRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView rgb = RequireBytes(info, 0, "rgb");
  // JPEG_MAX_DIMENSION in libjpeg-turbo.
  unsigned width = static_cast<unsigned>(RequireInteger(info, 1, "width", 1, 65500));
  unsigned height = static_cast<unsigned>(RequireInteger(info, 2, "height", 1, 65500));
  // OpenCV clamps IMWRITE_JPEG_QUALITY to [0, 100]; libjpeg treats 0 as 1.
  int quality = static_cast<int>(RequireInteger(info, 3, "quality", 0, 100));

  size_t needed = static_cast<size_t>(width) * height * 3;
  if (rgb.length < needed) {
    throw MakeError(env, kErrBufferSize,
                    "rgb holds " + std::to_string(rgb.length) + " bytes but a " +
                        std::to_string(width) + "x" + std::to_string(height) +
                        " RGB image needs " + std::to_string(needed));
  }

  GrowableDestination dest;
  std::memset(&dest, 0, sizeof dest);
  // Starting near the likely output size keeps reallocations rare.
  dest.capacity = needed / 8 + 4096;
  dest.data = static_cast<unsigned char*>(std::malloc(dest.capacity));
  if (dest.data == nullptr) throw Napi::Error::New(env, "out of memory");

  JpegErrorManager errors;
  bool ok = EncodeRGB(rgb.data, width, height, quality, &dest, &errors);
  // libjpeg is done, so RAII is safe again from here on.
  std::unique_ptr<unsigned char, FreeDeleter> output(dest.data);
  if (!ok) {
    throw MakeError(env, kErrJpeg, std::string("JPEG encoding failed: ") + errors.message);
  }
  // Copy rather than wrap the malloc'd block: external buffers are refused by
  // Electron's V8 memory cage, and the copy is cheap next to the encode.
  return Napi::Buffer<uint8_t>::Copy(env, output.get(), dest.size);
}

}  // namespace beton

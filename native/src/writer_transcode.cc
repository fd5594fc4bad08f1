// The writer's common image path in one call: a source JPEG decoded the way
// PIL decodes it, shrunk like cv2.resize(INTER_AREA), then stored raw or
// JPEG-encoded like cv2.imencode: what FFCV's RGBImageField does to the PIL
// image an ImageFolder dataset hands it.
//
// Why one call: done as three JS calls (decode, resize, encode) each step
// allocates a fresh typed array (a 400x400 source is 480 KB, zero-filled, and
// a new mapping the kernel faults in page by page), and the full-size pixels
// cross into JS only to be handed back. Here the pixels live in per-thread
// buffers that are reused from one image to the next, and the header is
// parsed once. The per-step functions (jpeg_decode.cc, resize_core.cc,
// jpeg_encode.cc) stay the reference: the results are the same bytes
// (test/writer-transcode.test.ts).
//
// Only what decodes exactly like PIL/sharp takes this path: an 8-bit YCbCr or
// greyscale JPEG (as libjpeg reads the colour space) whose size is the one the
// caller parsed, decoded with no warning at all. Everything else returns null
// and the caller takes the general path (sharp), which converts colours and
// reports damage with its own messages.

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <jerror.h>

#include "args.h"
#include "beton_native.h"
#include "jpeg_error.h"
#include "resize_core.h"

namespace beton {
namespace {

constexpr int kChannels = 3;
constexpr unsigned kRowsPerCall = 16;
// Per-thread buffers above this size are released after the call instead of
// kept, so one huge source image does not pin its pixels for the whole build.
constexpr size_t kKeepBytes = size_t{32} << 20;

// Malloc'd output memory that libjpeg's destination manager may grow. Plain C
// memory (not a vector): libjpeg longjmps on errors, which would skip a
// vector's destructor; the block is owned by the thread's Scratch.
struct OutputBlock {
  unsigned char* data = nullptr;
  size_t capacity = 0;
};

// Reused from call to call on the same thread (each encode worker is one
// thread; calls never nest).
struct Scratch {
  std::vector<uint8_t> decoded;
  std::vector<uint8_t> resized;
  std::vector<uint8_t> band;  // jpegCheck's rows
  OutputBlock out;
  ~Scratch() { std::free(out.data); }
};

thread_local Scratch scratch;

struct Destination {
  jpeg_destination_mgr pub;  // first member: libjpeg only sees this part
  OutputBlock* block;
  size_t size;  // bytes of finished output, set by TermDestination
};

Destination* DestinationOf(j_compress_ptr cinfo) {
  return reinterpret_cast<Destination*>(cinfo->dest);
}

void InitDestination(j_compress_ptr cinfo) {
  Destination* dest = DestinationOf(cinfo);
  dest->pub.next_output_byte = dest->block->data;
  dest->pub.free_in_buffer = dest->block->capacity;
}

boolean EmptyOutputBuffer(j_compress_ptr cinfo) {
  // Called only when the whole block is full: keep it all, double it.
  Destination* dest = DestinationOf(cinfo);
  OutputBlock* block = dest->block;
  size_t grown = block->capacity * 2;
  unsigned char* data = static_cast<unsigned char*>(std::realloc(block->data, grown));
  if (data == nullptr) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 98);
  block->data = data;
  dest->pub.next_output_byte = data + block->capacity;
  dest->pub.free_in_buffer = grown - block->capacity;
  block->capacity = grown;
  return TRUE;
}

void TermDestination(j_compress_ptr cinfo) {
  Destination* dest = DestinationOf(cinfo);
  dest->size = dest->block->capacity - dest->pub.free_in_buffer;
}

// Decodes into `dst` (src_w x src_h RGB) with libjpeg's defaults except the
// output colour space: the accurate integer IDCT and fancy upsampling, which
// is how PIL (FFCV's source decoder) and libvips decode. False on any error
// or warning, on a colour space other than YCbCr/greyscale and on a size
// other than the one expected. Drives libjpeg under setjmp: per jpeg_error.h
// only trivially destructible locals.
bool DecodeSource(const uint8_t* src, size_t length, unsigned src_w, unsigned src_h,
                  uint8_t* dst) {
  JpegErrorManager errors;
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = InitJpegErrorManager(&errors);
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(length));
  jpeg_read_header(&cinfo, TRUE);
  const bool plain = (cinfo.jpeg_color_space == JCS_YCbCr && cinfo.num_components == 3) ||
                     (cinfo.jpeg_color_space == JCS_GRAYSCALE && cinfo.num_components == 1);
  if (!plain || cinfo.image_width != src_w || cinfo.image_height != src_h ||
      cinfo.data_precision != 8 || errors.warnings > 0) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = JCS_EXT_RGB;
  cinfo.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&cinfo);
  const size_t stride = static_cast<size_t>(src_w) * kChannels;
  JSAMPROW rows[kRowsPerCall];
  while (cinfo.output_scanline < cinfo.output_height) {
    const unsigned first = cinfo.output_scanline;
    const unsigned count = std::min(kRowsPerCall, cinfo.output_height - first);
    for (unsigned i = 0; i < count; i++) rows[i] = dst + static_cast<size_t>(first + i) * stride;
    jpeg_read_scanlines(&cinfo, rows, count);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return errors.warnings == 0;
}

// JPEG-encodes packed RGB with OpenCV 4.6's imencode settings, as
// jpeg_encode.cc does (see there for why they give FFCV's bytes): defaults,
// no restart interval, quality with baseline tables. Returns the size written
// into `block`, or 0 on failure. Under setjmp, like DecodeSource.
size_t EncodeRGB(const uint8_t* rgb, unsigned width, unsigned height, int quality,
                 OutputBlock* block) {
  JpegErrorManager errors;
  jpeg_compress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = InitJpegErrorManager(&errors);
  Destination dest;
  std::memset(&dest, 0, sizeof dest);
  dest.block = block;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&cinfo);
    return 0;
  }
  jpeg_create_compress(&cinfo);
  dest.pub.init_destination = InitDestination;
  dest.pub.empty_output_buffer = EmptyOutputBuffer;
  dest.pub.term_destination = TermDestination;
  cinfo.dest = &dest.pub;
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = kChannels;
  cinfo.in_color_space = JCS_RGB;  // before jpeg_set_defaults, which derives YCbCr + JFIF from it
  jpeg_set_defaults(&cinfo);
  cinfo.restart_interval = 0;
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const size_t stride = static_cast<size_t>(width) * kChannels;
  JSAMPROW rows[kRowsPerCall];
  while (cinfo.next_scanline < cinfo.image_height) {
    const unsigned first = cinfo.next_scanline;
    const unsigned count = std::min(kRowsPerCall, height - first);
    // libjpeg's API is not const-correct; it only reads input rows.
    for (unsigned i = 0; i < count; i++) rows[i] = const_cast<JSAMPROW>(rgb + (first + i) * stride);
    jpeg_write_scanlines(&cinfo, rows, count);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return dest.size;
}

// Decodes the whole image, pixels discarded, to hear what libjpeg says about it: the
// number of warnings and the first one, and the error that stopped it if any (empty
// strings otherwise). Output colour space left at libjpeg's choice, so CMYK, YCCK and
// Adobe RGB files are read too; fast IDCT and no fancy upsampling, which change pixels
// but not what the entropy decoder meets. Under setjmp: trivially destructible locals
// only; `band` is allocated by the caller.
struct CheckResult {
  int warnings;
  char first_warning[JMSG_LENGTH_MAX];
  char error[JMSG_LENGTH_MAX];
};

void CheckJpeg(const uint8_t* src, size_t length, std::vector<uint8_t>* band, CheckResult* out) {
  JpegErrorManager errors;
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = InitJpegErrorManager(&errors);
  out->warnings = 0;
  out->first_warning[0] = '\0';
  out->error[0] = '\0';
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    out->warnings = errors.warnings;
    std::memcpy(out->first_warning, errors.first_warning, sizeof out->first_warning);
    std::memcpy(out->error, errors.message, sizeof out->error);
    if (out->error[0] == '\0') std::strcpy(out->error, "libjpeg failed");
    return;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(length));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.dct_method = JDCT_IFAST;
  cinfo.do_fancy_upsampling = FALSE;
  jpeg_calc_output_dimensions(&cinfo);
  const size_t stride = static_cast<size_t>(cinfo.output_width) * cinfo.output_components;
  const size_t need = stride * kRowsPerCall;
  if (band->size() < need) {
    // Not here: a throw would cross libjpeg's frames. The caller sizes `band` from the
    // header first; a file whose header changed meanwhile cannot happen (same bytes).
    jpeg_destroy_decompress(&cinfo);
    std::strcpy(out->error, "internal: band buffer too small");
    return;
  }
  jpeg_start_decompress(&cinfo);
  JSAMPROW rows[kRowsPerCall];
  for (unsigned i = 0; i < kRowsPerCall; i++) rows[i] = band->data() + i * stride;
  while (cinfo.output_scanline < cinfo.output_height) {
    const unsigned count = std::min(kRowsPerCall, cinfo.output_height - cinfo.output_scanline);
    jpeg_read_scanlines(&cinfo, rows, count);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  out->warnings = errors.warnings;
  std::memcpy(out->first_warning, errors.first_warning, sizeof out->first_warning);
}

// CPU time of the calling thread in milliseconds: stage timings must not count
// the time another process held the core (the build machines are shared).
double ThreadCpuMs() {
  timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// The frame header's width (0 when the header cannot be read: CheckJpeg then reports why).
struct HeaderWidth {
  unsigned width;
};

HeaderWidth ReadWidth(const uint8_t* src, size_t length) {
  JpegErrorManager errors;
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = InitJpegErrorManager(&errors);
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return HeaderWidth{0};
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src, static_cast<unsigned long>(length));
  jpeg_read_header(&cinfo, TRUE);
  HeaderWidth out{cinfo.image_width};
  jpeg_destroy_decompress(&cinfo);
  return out;
}

void Trim(std::vector<uint8_t>* buffer) {
  if (buffer->capacity() > kKeepBytes) std::vector<uint8_t>().swap(*buffer);
}

}  // namespace

// jpegCheck(src): { warnings, warning, error } from decoding the whole file with libjpeg
// (see CheckJpeg); `warning` is the first warning, `error` what stopped the decode ('' when
// none). The source decoder's damage check: per call and thread-safe, unlike libvips'
// warning handling, which several encode workers using sharp at once confuse.
Napi::Value JpegCheck(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ByteView src = RequireBytes(info, 0, "src");
  // The band holds 16 output rows of up to 4 components at the header's width; read the
  // width first (outside any setjmp region the header read cannot allocate for us).
  HeaderWidth header = ReadWidth(src.data, src.length);
  std::vector<uint8_t>& band = scratch.band;
  const size_t need = static_cast<size_t>(header.width) * 4 * kRowsPerCall;
  if (band.size() < need) band.resize(need);
  CheckResult result;
  CheckJpeg(src.data, src.length, &band, &result);
  Trim(&band);
  Napi::Object out = Napi::Object::New(env);
  out.Set("warnings", Napi::Number::New(env, result.warnings));
  out.Set("warning", Napi::String::New(env, result.first_warning));
  out.Set("error", Napi::String::New(env, result.error));
  return out;
}

// threadCpuMs(): the calling thread's CPU time in ms (writer stage timings).
Napi::Value ThreadCpuTime(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), ThreadCpuMs());
}

// transcodeJpeg(src, srcWidth, srcHeight, dstWidth, dstHeight, quality[, stages]):
// quality 0..100 stores JPEG, -1 stores the raw RGB pixels. Returns a Buffer,
// or null when the file does not qualify (see the top of this file). With a
// Float64Array `stages` (3+ elements), the thread CPU ms of decode, resize and
// encode are added to stages[0..2].
Napi::Value TranscodeJpeg(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr int64_t kMaxSide = 65500;  // JPEG_MAX_DIMENSION
  ByteView src = RequireBytes(info, 0, "src");
  const int src_w = static_cast<int>(RequireInteger(info, 1, "srcWidth", 1, kMaxSide));
  const int src_h = static_cast<int>(RequireInteger(info, 2, "srcHeight", 1, kMaxSide));
  const int dst_w = static_cast<int>(RequireInteger(info, 3, "dstWidth", 1, src_w));
  const int dst_h = static_cast<int>(RequireInteger(info, 4, "dstHeight", 1, src_h));
  const int quality = static_cast<int>(RequireInteger(info, 5, "quality", -1, 100));
  double* stages = nullptr;
  if (info.Length() > 6 && info[6].IsTypedArray()) {
    Napi::TypedArray typed = info[6].As<Napi::TypedArray>();
    if (typed.TypedArrayType() != napi_float64_array || typed.ElementLength() < 3) {
      throw Napi::TypeError::New(env, "stages must be a Float64Array of 3 or more elements");
    }
    stages = typed.As<Napi::Float64Array>().Data();
  }
  const size_t src_bytes = static_cast<size_t>(src_w) * src_h * kChannels;
  if (src_bytes > (size_t{1} << 31)) return env.Null();  // the general path reports it

  // Allocations happen here, outside any setjmp region (bad_alloc becomes a JS error).
  std::vector<uint8_t>& decoded = scratch.decoded;
  if (decoded.size() < src_bytes) decoded.resize(src_bytes);
  const bool same = dst_w == src_w && dst_h == src_h;
  const size_t dst_bytes = static_cast<size_t>(dst_w) * dst_h * kChannels;
  if (!same && scratch.resized.size() < dst_bytes) scratch.resized.resize(dst_bytes);
  if (quality >= 0 && scratch.out.data == nullptr) {
    scratch.out.capacity = size_t{256} << 10;
    scratch.out.data = static_cast<unsigned char*>(std::malloc(scratch.out.capacity));
    if (scratch.out.data == nullptr) throw Napi::Error::New(env, "out of memory");
  }

  Napi::Value result = env.Null();
  double t0 = stages != nullptr ? ThreadCpuMs() : 0;
  const bool decoded_ok = DecodeSource(src.data, src.length, static_cast<unsigned>(src_w),
                                       static_cast<unsigned>(src_h), decoded.data());
  double t1 = stages != nullptr ? ThreadCpuMs() : 0;
  if (stages != nullptr) stages[0] += t1 - t0;
  if (decoded_ok) {
    const uint8_t* pixels = decoded.data();
    if (!same) {
      ResizeInterAreaRGB(pixels, static_cast<size_t>(src_w) * kChannels, src_w, src_h,
                         scratch.resized.data(), dst_w, dst_h);
      pixels = scratch.resized.data();
    }
    double t2 = stages != nullptr ? ThreadCpuMs() : 0;
    if (stages != nullptr) stages[1] += t2 - t1;
    if (quality < 0) {
      result = Napi::Buffer<uint8_t>::Copy(env, pixels, dst_bytes);
    } else {
      const size_t size = EncodeRGB(pixels, static_cast<unsigned>(dst_w),
                                    static_cast<unsigned>(dst_h), quality, &scratch.out);
      // Copied out rather than handed over: external buffers are refused by
      // Electron's V8 memory cage, and the block is reused for the next image.
      if (size > 0) result = Napi::Buffer<uint8_t>::Copy(env, scratch.out.data, size);
    }
    if (stages != nullptr) stages[2] += ThreadCpuMs() - t2;
  }
  Trim(&decoded);
  Trim(&scratch.resized);
  if (scratch.out.capacity > kKeepBytes) {
    std::free(scratch.out.data);
    scratch.out = OutputBlock{};
  }
  return result;
}

}  // namespace beton

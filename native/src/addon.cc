// Module registration. The exports are synchronous: callers that need
// parallelism run them in worker threads, each of which loads its own
// instance of this addon (all state is per call, except the mutex-guarded
// mapping table in mmap.cc).

#include <napi.h>

#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>

#include "beton_native.h"

#define BETON_STRINGIFY_INNER(x) #x
#define BETON_STRINGIFY(x) BETON_STRINGIFY_INNER(x)

namespace {

Napi::Object InitBetonNative(Napi::Env env, Napi::Object exports) {
  using namespace beton;
  exports.Set("mmapFile", Napi::Function::New(env, MmapFile, "mmapFile"));
  exports.Set("madvise", Napi::Function::New(env, Madvise, "madvise"));
  exports.Set("pageCacheResidency", Napi::Function::New(env, PageCacheResidency, "pageCacheResidency"));
  exports.Set("jpegInfo", Napi::Function::New(env, JpegInfo, "jpegInfo"));
  exports.Set("jpegDecodeRGB", Napi::Function::New(env, JpegDecodeRGB, "jpegDecodeRGB"));
  exports.Set("jpegEncodeRGB", Napi::Function::New(env, JpegEncodeRGB, "jpegEncodeRGB"));
  exports.Set("resizeAreaRGB", Napi::Function::New(env, ResizeAreaRGB, "resizeAreaRGB"));
  exports.Set("mapPixels", Napi::Function::New(env, MapPixelsU8, "mapPixels"));
  // The libjpeg-turbo headers compiled against; exact pixel/byte equality
  // with FFCV depends on it, so it is worth showing in diagnostics.
#ifdef LIBJPEG_TURBO_VERSION
  exports.Set("jpegLibrary",
              Napi::String::New(env, "libjpeg-turbo " BETON_STRINGIFY(LIBJPEG_TURBO_VERSION)));
#else
  exports.Set("jpegLibrary",
              Napi::String::New(env, "libjpeg " BETON_STRINGIFY(JPEG_LIB_VERSION)));
#endif
  return exports;
}

}  // namespace

// NODE_API_MODULE pastes the function name into an identifier, so it must be
// unqualified.
NODE_API_MODULE(beton_native, InitBetonNative)

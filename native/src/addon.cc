// Module registration. The exports are synchronous: callers that need
// parallelism run them in worker threads, each of which loads its own
// instance of this addon (all state is per call, except the mutex-guarded
// mapping table in mmap.cc).

#include <napi.h>

#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>

#include "beton_native.h"
#include "guard.h"

#define BETON_STRINGIFY_INNER(x) #x
#define BETON_STRINGIFY(x) BETON_STRINGIFY_INNER(x)

namespace {

Napi::Object InitBetonNative(Napi::Env env, Napi::Object exports) {
  using namespace beton;
  ExportFunction<MmapFile>(env, exports, "mmapFile");
  ExportFunction<Madvise>(env, exports, "madvise");
  ExportFunction<PageCacheResidency>(env, exports, "pageCacheResidency");
  ExportFunction<JpegInfo>(env, exports, "jpegInfo");
  ExportFunction<JpegDecodeRGB>(env, exports, "jpegDecodeRGB");
  ExportFunction<JpegEncodeRGB>(env, exports, "jpegEncodeRGB");
  ExportFunction<ResizeAreaRGB>(env, exports, "resizeAreaRGB");
  ExportFunction<MapPixelsU8>(env, exports, "mapPixels");
  ExportFunction<TranscodeJpeg>(env, exports, "transcodeJpeg");
  ExportFunction<ThreadCpuTime>(env, exports, "threadCpuMs");
  ExportFunction<JpegCheck>(env, exports, "jpegCheck");
  ExportFunction<Pcg64ShuffleU32>(env, exports, "pcg64ShuffleU32");
  ExportFunction<GatherRecords>(env, exports, "gatherRecords");
  ExportFunction<GatherPlanCreate>(env, exports, "gatherPlanCreate");
  ExportFunction<GatherPlanOrder>(env, exports, "gatherPlanOrder");
  ExportFunction<GatherPlanRun>(env, exports, "gatherPlanRun");
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

// Every export goes through Guarded (guard.h): no C++ exception may reach V8,
// e.g. a Napi::Error while worker.terminate() stops the thread mid-call.
// New exports: ExportFunction<Fn>(env, exports, "name"), never
// Napi::Function::New (test/native-abort.test.ts checks).
BETON_GUARDED_MODULE(beton_native, InitBetonNative)

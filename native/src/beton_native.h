// Entry points of the addon, one per exported JS function. Each is defined in
// the source file named after its concept and registered in addon.cc.
#pragma once

#include <napi.h>

namespace beton {

// mmap.cc
Napi::Value MmapFile(const Napi::CallbackInfo& info);
Napi::Value Madvise(const Napi::CallbackInfo& info);
Napi::Value PageCacheResidency(const Napi::CallbackInfo& info);

// jpeg_decode.cc
Napi::Value JpegInfo(const Napi::CallbackInfo& info);
Napi::Value JpegDecodeRGB(const Napi::CallbackInfo& info);

// jpeg_encode.cc
Napi::Value JpegEncodeRGB(const Napi::CallbackInfo& info);

// resize_area.cc
Napi::Value ResizeAreaRGB(const Napi::CallbackInfo& info);

// pixel_map.cc
Napi::Value MapPixelsU8(const Napi::CallbackInfo& info);

// writer_transcode.cc
Napi::Value TranscodeJpeg(const Napi::CallbackInfo& info);
Napi::Value ThreadCpuTime(const Napi::CallbackInfo& info);
Napi::Value JpegCheck(const Napi::CallbackInfo& info);

// shuffle.cc
Napi::Value Pcg64ShuffleU32(const Napi::CallbackInfo& info);

// gather.cc
Napi::Value GatherRecords(const Napi::CallbackInfo& info);

// gather_plan.cc
Napi::Value GatherPlanCreate(const Napi::CallbackInfo& info);
Napi::Value GatherPlanOrder(const Napi::CallbackInfo& info);
Napi::Value GatherPlanRun(const Napi::CallbackInfo& info);

}  // namespace beton

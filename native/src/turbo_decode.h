// JPEG decoding through the run-time loaded TurboJPEG library: whole images,
// and the loader's hot path, crop + DCT-domain downscale + area resize.
//
// Synchronous, on the calling thread. Each thread lazily creates one
// TurboJPEG decompressor and keeps it (and a scratch buffer) in thread-local
// storage, so worker_threads decode in parallel without locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "turbojpeg_abi.h"

namespace beton {

enum class TurboStatus {
  kOk,
  kNotLoaded,        // turboLoad has not succeeded yet
  kJpegError,        // TurboJPEG rejected the data
  kJpegWarning,      // corrupt but recovered data, and strict was requested
  kBufferTooSmall,   // dst cannot hold the output
  kBadCrop,          // crop rectangle outside the image
  kTooLarge,         // the decoded region would exceed 2 GiB
};

struct TurboResult {
  TurboStatus status = TurboStatus::kOk;
  std::string message;
  int width = 0;  // the JPEG's dimensions (full resolution)
  int height = 0;
  int warnings = 0;  // recovered-from corruption (0 or 1: TurboJPEG reports one)
  tj::ScalingFactor scale{1, 1};  // the DCT scaling factor used
  size_t needed = 0;              // for kBufferTooSmall: bytes dst must hold
};

struct TurboHeader {
  int width = 0;
  int height = 0;
  int subsamp = tj::kSampUnknown;  // TJSAMP_*, -1 unknown
  int colorspace = -1;             // TJCS_*, -1 unknown
};

struct CropRect {
  int x;
  int y;
  int w;
  int h;
};

TurboResult TurboReadHeader(const uint8_t* src, size_t length, TurboHeader* header);

// The size the caller's metadata gives the image: when set (both > 0), a JPEG of any other
// size is rejected (kJpegError) before anything is decoded, as the .beton reader rejects
// an image sample whose JPEG contradicts its width/height.
struct ExpectedSize {
  int width = 0;
  int height = 0;
};

// Decodes the whole image at full scale into dst (width*height*3 bytes, RGB).
TurboResult TurboDecodeFull(const uint8_t* src, size_t length, uint8_t* dst, size_t dst_length,
                            bool fast_dct, bool strict, ExpectedSize expect = {});

// Decodes `crop` (full-resolution pixel coordinates) and resizes it to
// out_w x out_h packed RGB in dst, like cv2.resize(INTER_AREA) of the crop.
// With allow_scaling, the JPEG is decoded at the smallest DCT scaling factor
// s in {1/8, 1/4, 1/2, 1} (those of the library's list that have SIMD
// IDCTs) for which crop.w*s >= out_w and crop.h*s >= out_h; only the iMCU columns and the rows covering the crop are
// decoded. Without it (or when no s < 1 qualifies), s = 1 and the output
// equals full decode + crop + cv2.resize(INTER_AREA) exactly.
TurboResult TurboDecodeCropResize(const uint8_t* src, size_t length, CropRect crop,
                                  uint8_t* dst, size_t dst_length, int out_w, int out_h,
                                  bool fast_dct, bool allow_scaling, bool strict,
                                  ExpectedSize expect = {});

// The scaling factor TurboDecodeCropResize picks (exposed for tests).
tj::ScalingFactor ChooseScalingFactor(int crop_w, int crop_h, int out_w, int out_h,
                                      bool allow_scaling);

}  // namespace beton

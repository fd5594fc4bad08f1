// The part of the TurboJPEG C ABI this addon uses, declared by hand.
//
// libturbojpeg is not linked: it is dlopen'ed at run time from the npm
// package that ships it (see turbo_library.cc), and no turbojpeg.h is
// installed on the build machines. Everything below mirrors libjpeg-turbo's
// turbojpeg.h; the TurboJPEG ABI is stable (enums and symbol versions are
// only ever appended to), so these values hold for every 3.x library, and
// the TurboJPEG 2 subset for 2.0 and later.
#pragma once

#include <cstddef>

namespace beton {
namespace tj {

using Handle = void*;  // tjhandle

// tjscalingfactor and tjregion: passed *by value* to tj3SetScalingFactor and
// tj3SetCroppingRegion, so the layout (all ints, no padding) must match.
struct ScalingFactor {
  int num;
  int denom;
};

struct Region {
  int x;
  int y;
  int w;
  int h;
};

static_assert(sizeof(ScalingFactor) == 2 * sizeof(int), "tjscalingfactor layout");
static_assert(sizeof(Region) == 4 * sizeof(int), "tjregion layout");

// enum TJINIT
constexpr int kInitDecompress = 1;

// enum TJPF
constexpr int kPixelFormatRGB = 0;

// enum TJSAMP, and the iMCU size of each (tjMCUWidth / tjMCUHeight). 4:4:1
// exists from TurboJPEG 3 on.
constexpr int kSampUnknown = -1;
constexpr int kSampGray = 3;
constexpr int kNumSamp = 7;
constexpr int kMcuWidth[kNumSamp] = {8, 16, 16, 8, 8, 32, 8};
constexpr int kMcuHeight[kNumSamp] = {8, 8, 16, 8, 16, 8, 32};

// enum TJCS
constexpr int kNumColorspaces = 5;
constexpr const char* kColorspaceNames[kNumColorspaces] = {"RGB", "YCbCr", "Grayscale",
                                                           "CMYK", "YCCK"};

// enum TJPARAM (TurboJPEG 3). Only the first eleven are used.
constexpr int kParamStopOnWarning = 0;
constexpr int kParamSubsamp = 4;
constexpr int kParamJpegWidth = 5;
constexpr int kParamJpegHeight = 6;
constexpr int kParamPrecision = 7;
constexpr int kParamColorspace = 8;
constexpr int kParamFastUpsample = 9;
constexpr int kParamFastDct = 10;

// enum TJERR
constexpr int kErrWarning = 0;

// TurboJPEG 2 flags (tjDecompress2).
constexpr int kFlagFastDct = 2048;
constexpr int kFlagAccurateDct = 4096;

// TurboJPEG 3 entry points.
using Tj3Init = Handle (*)(int init_type);
using Tj3Destroy = void (*)(Handle handle);
using Tj3GetErrorStr = char* (*)(Handle handle);
using Tj3GetErrorCode = int (*)(Handle handle);
using Tj3Set = int (*)(Handle handle, int param, int value);
using Tj3Get = int (*)(Handle handle, int param);
using Tj3DecompressHeader = int (*)(Handle handle, const unsigned char* jpeg_buf,
                                    size_t jpeg_size);
using Tj3GetScalingFactors = ScalingFactor* (*)(int* num_scaling_factors);
using Tj3SetScalingFactor = int (*)(Handle handle, ScalingFactor scaling_factor);
using Tj3SetCroppingRegion = int (*)(Handle handle, Region cropping_region);
using Tj3Decompress8 = int (*)(Handle handle, const unsigned char* jpeg_buf, size_t jpeg_size,
                               unsigned char* dst_buf, int pitch, int pixel_format);

// TurboJPEG 2 entry points (2.0+: tjGetErrorStr2 / tjGetErrorCode).
using TjInitDecompress = Handle (*)();
using TjDestroy = int (*)(Handle handle);
using TjGetErrorStr2 = char* (*)(Handle handle);
using TjGetErrorCode = int (*)(Handle handle);
using TjDecompressHeader3 = int (*)(Handle handle, const unsigned char* jpeg_buf,
                                    unsigned long jpeg_size, int* width, int* height,
                                    int* jpeg_subsamp, int* jpeg_colorspace);
using TjGetScalingFactors = ScalingFactor* (*)(int* num_scaling_factors);
using TjDecompress2 = int (*)(Handle handle, const unsigned char* jpeg_buf,
                              unsigned long jpeg_size, unsigned char* dst_buf, int width,
                              int pitch, int height, int pixel_format, int flags);

// TJSCALED: ceil(dimension * factor).
inline int Scaled(int dimension, ScalingFactor factor) {
  return (dimension * factor.num + factor.denom - 1) / factor.denom;
}

}  // namespace tj
}  // namespace beton

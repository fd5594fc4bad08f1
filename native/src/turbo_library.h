// libturbojpeg, loaded at run time with dlopen from the path JS passes in
// (the copy shipped by the @julusian/jpeg-turbo npm package), never linked.
//
// The library is loaded once per process and never unloaded; every thread
// (each Node worker_thread loads this addon) shares the function table.
// TurboJPEG handles are per thread (turbo_decode.cc).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "turbojpeg_abi.h"

namespace beton {

struct TurboLibrary {
  // The path given to dlopen, and the file the symbols actually came from
  // (dladdr), which shows that the library is the npm package's copy.
  std::string requested_path;
  std::string resolved_path;
  // From the "libjpeg-turbo version X (build Y)" banner compiled into the
  // library, or "unknown".
  std::string version;
  std::string build;

  bool has_tj3 = false;
  bool has_tj2 = false;

  tj::Tj3Init tj3_init = nullptr;
  tj::Tj3Destroy tj3_destroy = nullptr;
  tj::Tj3GetErrorStr tj3_get_error_str = nullptr;
  tj::Tj3GetErrorCode tj3_get_error_code = nullptr;  // optional
  tj::Tj3Set tj3_set = nullptr;
  tj::Tj3Get tj3_get = nullptr;
  tj::Tj3DecompressHeader tj3_decompress_header = nullptr;
  tj::Tj3GetScalingFactors tj3_get_scaling_factors = nullptr;
  tj::Tj3SetScalingFactor tj3_set_scaling_factor = nullptr;
  tj::Tj3SetCroppingRegion tj3_set_cropping_region = nullptr;
  tj::Tj3Decompress8 tj3_decompress8 = nullptr;

  tj::TjInitDecompress tj_init_decompress = nullptr;
  tj::TjDestroy tj_destroy = nullptr;
  tj::TjGetErrorStr2 tj_get_error_str2 = nullptr;
  tj::TjGetErrorCode tj_get_error_code = nullptr;
  tj::TjDecompressHeader3 tj_decompress_header3 = nullptr;
  tj::TjGetScalingFactors tj_get_scaling_factors = nullptr;
  tj::TjDecompress2 tj_decompress2 = nullptr;

  // Downscaling factors the library supports (<= 1), smallest first.
  std::vector<tj::ScalingFactor> downscale_factors;
};

// Loads the library (first call only; later calls return the loaded one,
// whatever path they pass). Returns nullptr and sets *error on failure;
// a failed load may be retried with another path.
const TurboLibrary* LoadTurboLibrary(const std::string& path, std::string* error);

// The loaded library, or nullptr.
const TurboLibrary* LoadedTurboLibrary();

// The API generation decoders use: 3 when the library has the TurboJPEG 3
// API, else 2. SetTurboApi switches it (for tests of the TurboJPEG 2 path)
// and returns false when the library lacks that API.
int ActiveTurboApi();
bool SetTurboApi(int api);

}  // namespace beton

// See turbo_library.h.

#include "turbo_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace beton {
namespace {

std::mutex g_load_mutex;
// Published once fully initialised; never freed (the library stays loaded
// for the life of the process, so thread-exit handle cleanup can use it).
std::atomic<const TurboLibrary*> g_library{nullptr};
std::atomic<int> g_api{0};

template <typename Fn>
void Resolve(void* lib, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
}

// The library embeds libjpeg-turbo's banner "libjpeg-turbo version 3.1.2
// (build 20250916)"; TurboJPEG has no version call, so read it from the file.
void ReadVersionBanner(const std::string& path, std::string* version, std::string* build) {
  *version = "unknown";
  build->clear();
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return;
  std::vector<char> bytes;
  char chunk[1 << 16];
  size_t n;
  // Libraries are ~1 MB; stop at 64 MB in case the path is something odd.
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0 && bytes.size() < (64u << 20)) {
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  std::fclose(file);
  static const char kNeedle[] = "libjpeg-turbo version ";
  const size_t needle_len = sizeof kNeedle - 1;
  auto it = std::search(bytes.begin(), bytes.end(), kNeedle, kNeedle + needle_len);
  if (it == bytes.end()) return;
  auto start = it + static_cast<std::ptrdiff_t>(needle_len);
  auto end = std::find(start, bytes.end(), '\0');
  std::string banner(start, end);  // "3.1.2 (build 20250916)"
  size_t space = banner.find(' ');
  *version = banner.substr(0, space);
  size_t open = banner.find("(build ");
  size_t close = banner.find(')', open == std::string::npos ? 0 : open);
  if (open != std::string::npos && close != std::string::npos) {
    *build = banner.substr(open + 7, close - open - 7);
  }
}

}  // namespace

const TurboLibrary* LoadTurboLibrary(const std::string& path, std::string* error) {
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (const TurboLibrary* loaded = g_library.load()) return loaded;

  // RTLD_LOCAL: nothing of it joins the global namespace (the library only
  // exports tj* symbols anyway, so it cannot clash with the system libjpeg
  // that beton_native links). dlopen is reference counted, so loading from
  // several threads or addon instances is harmless.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    *error = std::string("dlopen failed: ") + (reason != nullptr ? reason : "unknown error");
    return nullptr;
  }

  auto* lib = new TurboLibrary();
  lib->requested_path = path;
  Resolve(handle, "tj3Init", &lib->tj3_init);
  Resolve(handle, "tj3Destroy", &lib->tj3_destroy);
  Resolve(handle, "tj3GetErrorStr", &lib->tj3_get_error_str);
  Resolve(handle, "tj3GetErrorCode", &lib->tj3_get_error_code);
  Resolve(handle, "tj3Set", &lib->tj3_set);
  Resolve(handle, "tj3Get", &lib->tj3_get);
  Resolve(handle, "tj3DecompressHeader", &lib->tj3_decompress_header);
  Resolve(handle, "tj3GetScalingFactors", &lib->tj3_get_scaling_factors);
  Resolve(handle, "tj3SetScalingFactor", &lib->tj3_set_scaling_factor);
  Resolve(handle, "tj3SetCroppingRegion", &lib->tj3_set_cropping_region);
  Resolve(handle, "tj3Decompress8", &lib->tj3_decompress8);
  lib->has_tj3 = lib->tj3_init && lib->tj3_destroy && lib->tj3_get_error_str &&
                 lib->tj3_set && lib->tj3_get && lib->tj3_decompress_header &&
                 lib->tj3_get_scaling_factors && lib->tj3_set_scaling_factor &&
                 lib->tj3_set_cropping_region && lib->tj3_decompress8;

  Resolve(handle, "tjInitDecompress", &lib->tj_init_decompress);
  Resolve(handle, "tjDestroy", &lib->tj_destroy);
  Resolve(handle, "tjGetErrorStr2", &lib->tj_get_error_str2);
  Resolve(handle, "tjGetErrorCode", &lib->tj_get_error_code);
  Resolve(handle, "tjDecompressHeader3", &lib->tj_decompress_header3);
  Resolve(handle, "tjGetScalingFactors", &lib->tj_get_scaling_factors);
  Resolve(handle, "tjDecompress2", &lib->tj_decompress2);
  lib->has_tj2 = lib->tj_init_decompress && lib->tj_destroy && lib->tj_get_error_str2 &&
                 lib->tj_get_error_code && lib->tj_decompress_header3 &&
                 lib->tj_get_scaling_factors && lib->tj_decompress2;

  if (!lib->has_tj3 && !lib->has_tj2) {
    delete lib;
    dlclose(handle);
    *error = "not a TurboJPEG 2.0+ library (tj3Init / tjDecompressHeader3 missing): " + path;
    return nullptr;
  }

  int count = 0;
  const tj::ScalingFactor* factors = lib->has_tj3 ? lib->tj3_get_scaling_factors(&count)
                                                  : lib->tj_get_scaling_factors(&count);
  for (int i = 0; factors != nullptr && i < count; i++) {
    const tj::ScalingFactor f = factors[i];
    if (f.num > 0 && f.denom > 0 && f.num <= f.denom) lib->downscale_factors.push_back(f);
  }
  std::sort(lib->downscale_factors.begin(), lib->downscale_factors.end(),
            [](tj::ScalingFactor a, tj::ScalingFactor b) {
              return static_cast<long long>(a.num) * b.denom <
                     static_cast<long long>(b.num) * a.denom;
            });
  if (lib->downscale_factors.empty()) lib->downscale_factors.push_back({1, 1});

  Dl_info info;
  void* symbol = lib->has_tj3 ? reinterpret_cast<void*>(lib->tj3_init)
                              : reinterpret_cast<void*>(lib->tj_init_decompress);
  if (dladdr(symbol, &info) != 0 && info.dli_fname != nullptr) {
    lib->resolved_path = info.dli_fname;
  } else {
    lib->resolved_path = path;
  }
  ReadVersionBanner(lib->resolved_path, &lib->version, &lib->build);

  g_api.store(lib->has_tj3 ? 3 : 2);
  g_library.store(lib);
  return lib;
}

const TurboLibrary* LoadedTurboLibrary() { return g_library.load(); }

int ActiveTurboApi() { return g_api.load(); }

bool SetTurboApi(int api) {
  const TurboLibrary* lib = g_library.load();
  if (lib == nullptr) return false;
  if ((api == 3 && !lib->has_tj3) || (api == 2 && !lib->has_tj2) || (api != 2 && api != 3)) {
    return false;
  }
  g_api.store(api);
  return true;
}

}  // namespace beton

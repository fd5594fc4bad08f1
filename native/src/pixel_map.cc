// The loader's fused per-pixel pass (core/pipeline/pixel-kernel.ts) in C++:
// one read of each packed HWC uint8 pixel, an optional horizontal mirror, an
// optional per-channel lookup table, and an HWC or CHW write. In JS this pass
// cost about a third of a worker's time per 160x160 image; here it is a few
// tens of microseconds.
//
// The table holds C*256 entries already in the destination's element type
// (uint8 ... float64, float16 as its bit pattern), `elem_bytes` each, so one
// kernel serves every output dtype by copying entries: no float conversion or
// rounding happens here, which keeps it bit-identical to the JS pass.

#include <cstdint>
#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <tmmintrin.h>
#define BETON_SSSE3_DEINTERLEAVE 1
#endif

#include "args.h"
#include "beton_native.h"
#include "errors.h"

namespace beton {
namespace {

#if defined(BETON_SSSE3_DEINTERLEAVE)
// Packed RGB rows to three planes, optionally mirrored, 16 pixels (48 bytes)
// at a time with pshufb: each plane's 16 bytes are gathered from the three
// 16-byte loads by one shuffle each (mask lanes 0x80 give 0) and OR'ed; the
// mirror is only other masks (lane j takes pixel 15 - j) and a mirrored store
// position. Returns the number of leading pixels of each row it handled
// (a multiple of 16); the caller does the rest. SSSE3 is checked at run time
// (prebuilt addons target baseline x86-64): pure byte moves, so the result is
// the scalar loop's exactly.
__attribute__((target("ssse3"))) int RgbToPlanesSsse3(const uint8_t* src, uint8_t* dst, int h,
                                                       int w, bool flip) {
  const int simd_w = w & ~15;
  if (simd_w == 0) return 0;
  alignas(16) uint8_t masks[3][3][16];  // [channel][which load][lane]
  for (int k = 0; k < 3; k++) {
    for (int part = 0; part < 3; part++) {
      for (int j = 0; j < 16; j++) {
        const int pixel = flip ? 15 - j : j;
        const int byte = pixel * 3 + k - part * 16;
        masks[k][part][j] = byte >= 0 && byte < 16 ? static_cast<uint8_t>(byte) : 0x80;
      }
    }
  }
  __m128i m[3][3];
  for (int k = 0; k < 3; k++) {
    for (int part = 0; part < 3; part++) {
      m[k][part] = _mm_load_si128(reinterpret_cast<const __m128i*>(masks[k][part]));
    }
  }
  const size_t plane = static_cast<size_t>(h) * w;
  for (int y = 0; y < h; y++) {
    const uint8_t* s = src + static_cast<size_t>(y) * w * 3;
    uint8_t* r = dst + static_cast<size_t>(y) * w;
    for (int x = 0; x < simd_w; x += 16) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x * 3));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x * 3 + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + x * 3 + 32));
      const size_t at = static_cast<size_t>(flip ? w - 16 - x : x);
      for (int k = 0; k < 3; k++) {
        const __m128i v = _mm_or_si128(
            _mm_or_si128(_mm_shuffle_epi8(a, m[k][0]), _mm_shuffle_epi8(b, m[k][1])),
            _mm_shuffle_epi8(c, m[k][2]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(r + k * plane + at), v);
      }
    }
  }
  return simd_w;
}
#endif

// Identity values, uint8 out: a mirror and/or a layout change only.
void CopyPixels(const uint8_t* src, uint8_t* dst, int h, int w, int c, bool flip, bool chw) {
  const size_t plane = static_cast<size_t>(h) * w;
  const size_t row_bytes = static_cast<size_t>(w) * c;
  int done = 0;  // leading pixels of each row already written (RGB to CHW)
#if defined(BETON_SSSE3_DEINTERLEAVE)
  static const bool kHasSsse3 = __builtin_cpu_supports("ssse3");
  if (chw && c == 3 && kHasSsse3) done = RgbToPlanesSsse3(src, dst, h, w, flip);
#endif
  for (int y = 0; y < h; y++) {
    const uint8_t* s = src + y * row_bytes;
    if (!chw) {
      uint8_t* d = dst + y * row_bytes;
      if (!flip) {
        std::memcpy(d, s, row_bytes);
        continue;
      }
      for (int x = 0; x < w; x++) {
        const uint8_t* p = s + static_cast<size_t>(w - 1 - x) * c;
        for (int k = 0; k < c; k++) d[x * c + k] = p[k];
      }
      continue;
    }
    uint8_t* d = dst + static_cast<size_t>(y) * w;
    if (c == 3) {
      uint8_t* r = d;
      uint8_t* g = d + plane;
      uint8_t* b = d + 2 * plane;
      // Pixels [done, w) of the row (mirrored: output columns [0, w - done)).
      if (flip) {
        for (int x = 0; x < w - done; x++) {
          const uint8_t* p = s + (w - 1 - x) * 3;
          r[x] = p[0];
          g[x] = p[1];
          b[x] = p[2];
        }
      } else {
        for (int x = done; x < w; x++) {
          const uint8_t* p = s + x * 3;
          r[x] = p[0];
          g[x] = p[1];
          b[x] = p[2];
        }
      }
      continue;
    }
    for (int x = 0; x < w; x++) {
      const uint8_t* p = s + static_cast<size_t>(flip ? w - 1 - x : x) * c;
      for (int k = 0; k < c; k++) d[k * plane + x] = p[k];
    }
  }
}

// Values through the table: entry (k, v) of `lut` is E bytes at (k*256+v)*E.
template <size_t E>
void MapPixels(const uint8_t* src, uint8_t* dst, const uint8_t* lut, int h, int w, int c,
               bool flip, bool chw) {
  const size_t plane = static_cast<size_t>(h) * w;
  for (int y = 0; y < h; y++) {
    const uint8_t* s = src + static_cast<size_t>(y) * w * c;
    for (int x = 0; x < w; x++) {
      const uint8_t* p = s + static_cast<size_t>(flip ? w - 1 - x : x) * c;
      const size_t pixel = static_cast<size_t>(y) * w + x;
      for (int k = 0; k < c; k++) {
        const size_t out = chw ? k * plane + pixel : pixel * c + k;
        std::memcpy(dst + out * E, lut + (static_cast<size_t>(k) * 256 + p[k]) * E, E);
      }
    }
  }
}

}  // namespace

// mapPixels(src, dst, lut | null, height, width, channels, elemBytes, flip, chw)
Napi::Value MapPixelsU8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr int64_t kMaxSide = 1 << 20;
  ByteView src = RequireBytes(info, 0, "src");
  ByteView dst = RequireBytes(info, 1, "dst");
  bool has_lut = info.Length() > 2 && !info[2].IsNull() && !info[2].IsUndefined();
  ByteView lut = has_lut ? RequireBytes(info, 2, "lut") : ByteView{nullptr, 0};
  int h = static_cast<int>(RequireInteger(info, 3, "height", 1, kMaxSide));
  int w = static_cast<int>(RequireInteger(info, 4, "width", 1, kMaxSide));
  int c = static_cast<int>(RequireInteger(info, 5, "channels", 1, 16));
  int e = static_cast<int>(RequireInteger(info, 6, "elemBytes", 1, 8));
  bool flip = OptionalBoolean(info, 7, false);
  bool chw = OptionalBoolean(info, 8, false);
  if (e != 1 && e != 2 && e != 4 && e != 8) throw Napi::RangeError::New(env, "elemBytes must be 1, 2, 4 or 8");
  if (!has_lut && e != 1) throw Napi::RangeError::New(env, "without a table the output is uint8 (elemBytes 1)");
  const size_t n = static_cast<size_t>(h) * w * c;
  if (n > (size_t{1} << 31)) throw Napi::RangeError::New(env, "image too large (over 2 GiB)");
  if (src.length < n) throw MakeError(env, kErrBufferSize, "src is smaller than height*width*channels");
  if (dst.length < n * e) throw MakeError(env, kErrBufferSize, "dst is smaller than height*width*channels*elemBytes");
  if (has_lut && lut.length < static_cast<size_t>(c) * 256 * e) {
    throw MakeError(env, kErrBufferSize, "lut is smaller than channels*256*elemBytes");
  }
  if (src.data == nullptr || dst.data == nullptr) return env.Undefined();
  // In place would read pixels already overwritten (mirror, CHW): refuse overlap.
  if (dst.data < src.data + n && src.data < dst.data + n * e) {
    throw Napi::RangeError::New(env, "src and dst must not overlap");
  }
  if (!has_lut) {
    CopyPixels(src.data, dst.data, h, w, c, flip, chw);
  } else if (e == 1) {
    MapPixels<1>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else if (e == 2) {
    MapPixels<2>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else if (e == 4) {
    MapPixels<4>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  } else {
    MapPixels<8>(src.data, dst.data, lut.data, h, w, c, flip, chw);
  }
  return env.Undefined();
}

}  // namespace beton

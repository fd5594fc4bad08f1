// Resizing 8-bit RGB images like OpenCV's cv2.resize(..., INTER_AREA)
// (OpenCV 4.x, imgproc/resize.cpp), on a sub-rectangle with a row stride.
//
// Shrinking reproduces OpenCV bit for bit, because FFCV resizes with it before
// storing images and in its crop decoders, and a re-implementation must produce
// the same pixels. OpenCV picks one of two algorithms, and so do we:
//  * "fast area" when both scale factors are integers: plain integer box
//    sums. 2x2 uses (sum + 2) >> 2 (its SIMD kernel), every other factor
//    sum * (1.f / area) rounded half-to-even.
//  * the general path otherwise: per-axis tables of fractional source-pixel
//    weights, float accumulation in OpenCV's exact order, then cvRound.
// Every double/float operation below mirrors OpenCV's expression by
// expression; reordering or fusing any of them (hence -ffp-contract=off in
// binding.gyp) changes rounding and breaks exactness.
//
// Enlarging (either axis) takes OpenCV's bilinear path in "area mode"; see
// ResizeLinearAreaMode.

#include "resize_core.h"

#include "hot_loops.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace beton {
namespace {

constexpr int kChannels = 3;

#if defined(__x86_64__)
// The AVX2 kernels below are chosen at run time: prebuilt addons stay
// baseline x86-64. Checked once, when the addon loads.
bool CpuHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
const bool kHasAvx2 = CpuHasAvx2();
#endif

// cv::saturate_cast<uchar>(float): cvRound (round half to even under the
// default FP environment, like _mm_cvtss_si32) and clamp.
inline uint8_t SaturateToByte(float value) {
#if defined(__SSE2__)
  // cvtss2si: exactly what cvRound compiles to (std::lrintf is a libm call).
  long rounded = _mm_cvtss_si32(_mm_set_ss(value));
#else
  long rounded = std::lrintf(value);
#endif
  if (rounded < 0) return 0;
  if (rounded > 255) return 255;
  return static_cast<uint8_t>(rounded);
}

// --- integer scale factors ("resizeAreaFast_") -----------------------------

BETON_HOT void ResizeAreaFast(const uint8_t* src, size_t src_step, int src_w, int src_h,
                    uint8_t* dst, int dst_w, int dst_h, int scale_x, int scale_y) {
  const int area = scale_x * scale_y;
  const float scale = 1.f / static_cast<float>(area);
  const int src_row_len = src_w * kChannels;
  const int dst_row_len = dst_w * kChannels;
  // Output columns whose whole source block lies inside the image.
  const int full_width = (src_w / scale_x) * kChannels;

  // Offsets of a block's pixels relative to its top-left sample, and of each
  // output sample's block in the source row.
  std::vector<size_t> block_offsets;
  block_offsets.reserve(static_cast<size_t>(area));
  for (int sy = 0; sy < scale_y; sy++) {
    for (int sx = 0; sx < scale_x; sx++) {
      block_offsets.push_back(sy * src_step + static_cast<size_t>(sx) * kChannels);
    }
  }
  std::vector<int> x_offsets(static_cast<size_t>(dst_row_len));
  for (int dx = 0; dx < dst_w; dx++) {
    int j = dx * kChannels;
    for (int c = 0; c < kChannels; c++) x_offsets[j + c] = scale_x * j + c;
  }

  for (int dy = 0; dy < dst_h; dy++) {
    uint8_t* out = dst + static_cast<size_t>(dy) * dst_row_len;
    const int sy0 = dy * scale_y;
    if (sy0 >= src_h) {
      std::memset(out, 0, static_cast<size_t>(dst_row_len));
      continue;
    }
    const uint8_t* row = src + static_cast<size_t>(sy0) * src_step;
    // A block row cut off by the bottom edge is averaged by the border loop.
    const int width = sy0 + scale_y <= src_h ? full_width : 0;
    int dx = 0;

    if (scale_x == 2 && scale_y == 2) {
      // OpenCV's ResizeAreaFastVec: rounding shift, i.e. round half up.
      const uint8_t* next = row + src_step;
      for (; dx < width; dx += kChannels) {
        int index = dx * 2;
        for (int c = 0; c < kChannels; c++) {
          out[dx + c] = static_cast<uint8_t>(
              (row[index + c] + row[index + c + 3] + next[index + c] +
               next[index + c + 3] + 2) >> 2);
        }
      }
    }
    for (; dx < width; dx++) {
      const uint8_t* block = row + x_offsets[dx];
      // 64-bit so huge blocks cannot overflow (OpenCV's int would).
      int64_t sum = 0;
      for (int k = 0; k < area; k++) sum += block[block_offsets[k]];
      out[dx] = SaturateToByte(static_cast<float>(sum) * scale);
    }

    // Blocks clipped by the right or bottom edge: mean of the pixels present.
    for (; dx < dst_row_len; dx++) {
      const int sx0 = x_offsets[dx];
      int64_t sum = 0;
      int count = 0;
      for (int sy = 0; sy < scale_y && sy0 + sy < src_h; sy++) {
        const uint8_t* pixels = src + static_cast<size_t>(sy0 + sy) * src_step + sx0;
        for (int sx = 0; sx < scale_x * kChannels; sx += kChannels) {
          if (sx0 + sx >= src_row_len) break;
          sum += pixels[sx];
          count++;
        }
      }
      // OpenCV divides 0/0 here and saturates the NaN to 0.
      out[dx] = count == 0 ? 0
                           : SaturateToByte(static_cast<float>(sum) /
                                            static_cast<float>(count));
    }
  }
}

// --- fractional scale factors ("resizeArea_") ------------------------------

// One source sample's contribution to one destination sample along an axis.
struct AreaWeight {
  int src_index;  // first channel of the source sample (pixel * channels)
  int dst_index;  // first channel of the destination sample
  float alpha;
};

inline int OpenCvFloor(double value) {
  int i = static_cast<int>(value);
  return i - (i > value);
}

inline int OpenCvCeil(double value) {
  int i = static_cast<int>(value);
  return i + (i < value);
}

// OpenCV's computeResizeAreaTab: a destination cell covers the source span
// [dx * scale, (dx + 1) * scale); partially covered pixels at either end get
// a proportional weight, ignoring slivers under 1e-3 of a pixel.
std::vector<AreaWeight> ComputeAreaWeights(int src_size, int dst_size, int channels,
                                           double scale) {
  std::vector<AreaWeight> table;
  table.reserve(static_cast<size_t>(src_size) * 2);
  for (int dx = 0; dx < dst_size; dx++) {
    double fsx1 = dx * scale;
    double fsx2 = fsx1 + scale;
    double cell_width = std::min(scale, src_size - fsx1);

    int sx1 = OpenCvCeil(fsx1);
    int sx2 = OpenCvFloor(fsx2);
    sx2 = std::min(sx2, src_size - 1);
    sx1 = std::min(sx1, sx2);

    if (sx1 - fsx1 > 1e-3) {
      table.push_back({(sx1 - 1) * channels, dx * channels,
                       static_cast<float>((sx1 - fsx1) / cell_width)});
    }
    for (int sx = sx1; sx < sx2; sx++) {
      table.push_back({sx * channels, dx * channels, static_cast<float>(1.0 / cell_width)});
    }
    if (fsx2 - sx2 > 1e-3) {
      table.push_back(
          {sx2 * channels, dx * channels,
           static_cast<float>(std::min(std::min(fsx2 - sx2, 1.), cell_width) / cell_width)});
    }
  }
  return table;
}

// The horizontal pass below in plain C++, `taps` source pixels per output
// pixel (a compile-time constant when inlined into AreaRowFixed).
inline void AreaRowScalar(const float* in, const int* first, const float* weights, int taps,
                          int dst_w, float* out) {
  for (int d = 0; d < dst_w; d++) {
    const float* p = in + static_cast<size_t>(first[d]) * 3;
    const float* w = weights + static_cast<size_t>(d) * taps;
    float a0 = p[0] * w[0];
    float a1 = p[1] * w[0];
    float a2 = p[2] * w[0];
    for (int k = 1; k < taps; k++) {
      a0 = a0 + p[3 * k] * w[k];
      a1 = a1 + p[3 * k + 1] * w[k];
      a2 = a2 + p[3 * k + 2] * w[k];
    }
    out[3 * d] = a0;
    out[3 * d + 1] = a1;
    out[3 * d + 2] = a2;
  }
}

// Horizontal pass of ResizeAreaGeneral for one source row already converted
// to floats (`in`, zero-padded by kMaxTaps pixels): each output pixel d sums
// kTaps consecutive source pixels from first[d] with weights
// weights[d * kTaps + k] (zero-padded). Per channel this is OpenCV's
// ((0 + s0*a0) + s1*a1) + ..., in the same order: 0 + x == x for the
// non-negative products, and a padded tap adds s*0 == +0, which changes
// nothing.
template <int kTaps>
BETON_HOT void AreaRowFixed(const float* in, const int* first, const float* weights, int d0,
                            int dst_w, float* out) {
#if defined(__SSE2__)
  // One pixel per 4-lane vector (R, G, B and a don't-care lane): the same
  // single-precision multiplies and adds per channel as the scalar loop, so
  // bit-identical. `in` and `out` have one float of padding for the 4th lane.
  for (int d = d0; d < dst_w; d++) {
    const float* p = in + static_cast<size_t>(first[d]) * 3;
    const float* w = weights + static_cast<size_t>(d) * kTaps;
    __m128 acc = _mm_mul_ps(_mm_loadu_ps(p), _mm_set1_ps(w[0]));
    for (int k = 1; k < kTaps; k++) {
      acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(p + 3 * k), _mm_set1_ps(w[k])));
    }
    _mm_storeu_ps(out + 3 * d, acc);  // lane 4 is overwritten by pixel d + 1
  }
  return;
#endif
  AreaRowScalar(in, first + d0, weights + static_cast<size_t>(d0) * kTaps, kTaps, dst_w - d0,
                out + static_cast<size_t>(d0) * 3);
}

#if defined(__x86_64__)
// Pair weights for AreaRowPairs: for pixels 2j and 2j + 1 and tap k, eight
// floats (w[2j][k] x4, w[2j+1][k] x4) at wide[(j * taps + k) * 8].
void WidenWeights(const std::vector<float>& weights, int taps, int dst_w, std::vector<float>* wide) {
  const int pairs = dst_w / 2;
  wide->resize(static_cast<size_t>(pairs) * taps * 8);
  float* o = wide->data();
  for (int j = 0; j < pairs; j++) {
    for (int k = 0; k < taps; k++) {
      const float a = weights[static_cast<size_t>(2 * j) * taps + k];
      const float b = weights[static_cast<size_t>(2 * j + 1) * taps + k];
      for (int l = 0; l < 4; l++) o[l] = a;
      for (int l = 4; l < 8; l++) o[l] = b;
      o += 8;
    }
  }
}

// AreaRowFixed two pixels per 8-lane vector (pixel 2j in the low half, 2j + 1
// in the high half), with the weights already laid out per lane: the same
// single-precision multiply and add per channel in the same order, so
// bit-identical (no FMA: explicit mul then add). Returns the first pixel left.
template <int kTaps>
__attribute__((target("avx2"))) int AreaRowPairs(const float* in, const int* first,
                                                 const float* wide, int dst_w, float* out) {
  int d = 0;
  for (; d + 2 <= dst_w; d += 2) {
    const float* a = in + static_cast<size_t>(first[d]) * 3;
    const float* b = in + static_cast<size_t>(first[d + 1]) * 3;
    __m256 acc = _mm256_mul_ps(_mm256_loadu2_m128(b, a), _mm256_loadu_ps(wide));
    for (int k = 1; k < kTaps; k++) {
      acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_loadu2_m128(b + 3 * k, a + 3 * k),
                                             _mm256_loadu_ps(wide + 8 * k)));
    }
    wide += 8 * kTaps;
    // Lane 4 of each pixel is overwritten by the next pixel (or padding).
    _mm_storeu_ps(out + 3 * d, _mm256_castps256_ps128(acc));
    _mm_storeu_ps(out + 3 * (d + 1), _mm256_extractf128_ps(acc, 1));
  }
  return d;
}
#endif

// `wide` is WidenWeights' table, or null to use the SSE2 path only.
BETON_HOT void AreaRow(const float* in, const int* first, const float* weights, const float* wide,
                       int taps, int dst_w, float* out) {
  int d0 = 0;
  switch (taps) {
#if defined(__x86_64__)
#define BETON_AREA_ROW(K)                                                         \
  case K:                                                                         \
    if (wide != nullptr) d0 = AreaRowPairs<K>(in, first, wide, dst_w, out);       \
    AreaRowFixed<K>(in, first, weights, d0, dst_w, out);                          \
    return;
#else
#define BETON_AREA_ROW(K)                                                         \
  case K:                                                                         \
    AreaRowFixed<K>(in, first, weights, d0, dst_w, out);                          \
    return;
#endif
    BETON_AREA_ROW(1)
    BETON_AREA_ROW(2)
    BETON_AREA_ROW(3)
    BETON_AREA_ROW(4)
    BETON_AREA_ROW(5)
#undef BETON_AREA_ROW
    default: AreaRowScalar(in, first, weights, taps, dst_w, out); return;
  }
}

// saturate_cast<uchar>(cvRound(v)) for a row of floats.
BETON_HOT void StoreRow(const float* sum, int n, uint8_t* out) {
  int i = 0;
#if defined(__SSE2__)
  // cvtps2dq rounds half to even under the default MXCSR, like cvRound;
  // the two saturating packs clamp to [0, 255].
  for (; i + 8 <= n; i += 8) {
    __m128i lo = _mm_cvtps_epi32(_mm_loadu_ps(sum + i));
    __m128i hi = _mm_cvtps_epi32(_mm_loadu_ps(sum + i + 4));
    __m128i words = _mm_packs_epi32(lo, hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(words, words));
  }
#endif
  for (; i < n; i++) out[i] = SaturateToByte(sum[i]);
}

// Resamples with per-axis weight tables (AreaWeight lists ordered by
// destination, then source index): OpenCV's ResizeArea_Invoker with
// WT = float, same order of operations.
BETON_HOT void ResizeAreaTables(const uint8_t* src, size_t src_step, int src_w,
                      const std::vector<AreaWeight>& x_weights,
                      const std::vector<AreaWeight>& y_weights, uint8_t* dst, int dst_w,
                      int dst_h) {
  const int row_len = dst_w * kChannels;

  // Each destination pixel's weights are one run of x_weights over
  // consecutive source pixels (the table is built cell by cell, left to
  // right); lay them out as `taps` weights per pixel, zero-padded.
  // (Within a pixel's run the source index only grows; a pixel skipped in
  // the middle would just get weight 0, which adds +0 in the same order.)
  // All six buffers are kept per thread between calls (refilled below as a
  // fresh vector would be), which saves six allocations per image.
  thread_local std::vector<int> first;
  thread_local std::vector<int> last;
  first.assign(static_cast<size_t>(dst_w), -1);
  last.assign(static_cast<size_t>(dst_w), -1);
  for (const AreaWeight& x : x_weights) {
    const size_t d = static_cast<size_t>(x.dst_index / kChannels);
    if (first[d] < 0) first[d] = x.src_index / kChannels;
    last[d] = x.src_index / kChannels;
  }
  int taps = 1;
  for (size_t d = 0; d < first.size(); d++) {
    if (first[d] < 0) first[d] = last[d] = 0;  // no taps: the pixel sums to 0, as in OpenCV
    taps = std::max(taps, last[d] - first[d] + 1);
  }
  thread_local std::vector<float> weights;
  weights.assign(static_cast<size_t>(dst_w) * taps, 0.f);
  for (const AreaWeight& x : x_weights) {
    const size_t d = static_cast<size_t>(x.dst_index / kChannels);
    const int k = x.src_index / kChannels - first[d];
    weights[d * taps + static_cast<size_t>(k)] = x.alpha;
  }

  // `in` holds one source row as floats, padded so that every padded tap
  // reads a (zero) float; `row` that row resampled horizontally; `sum` the
  // weighted rows of the current output row.
  thread_local std::vector<float> wide;
  const float* wide_weights = nullptr;
#if defined(__x86_64__)
  if (kHasAvx2 && taps <= 5) {
    WidenWeights(weights, taps, dst_w, &wide);
    wide_weights = wide.data();
  }
#endif
  thread_local std::vector<float> in;
  thread_local std::vector<float> row;
  thread_local std::vector<float> sum;
  in.assign(static_cast<size_t>(src_w + taps) * kChannels + 1, 0.f);
  row.resize(static_cast<size_t>(row_len) + 1);
  sum.assign(static_cast<size_t>(row_len), 0.f);
  // Plain pointers for the loops (the buffers do not move from here on, and
  // never overlap): no reload of the thread-local vectors, no alias checks.
  float* const in_p = in.data();
  float* __restrict const row_p = row.data();
  float* __restrict const sum_p = sum.data();
  int prev_dy = y_weights.empty() ? 0 : y_weights[0].dst_index;
  int row_source = -1;  // source row currently held in `row`

  auto flush = [&](int dy) {
    StoreRow(sum_p, row_len, dst + static_cast<size_t>(dy) * row_len);
  };

  for (const AreaWeight& y : y_weights) {
    const float beta = y.alpha;
    // A source row straddling two output rows appears twice in a row; its
    // horizontal pass gives the same floats both times, so reuse it.
    if (y.src_index != row_source) {
      const uint8_t* pixels = src + static_cast<size_t>(y.src_index) * src_step;
      const int n = src_w * kChannels;
      for (int i = 0; i < n; i++) in_p[i] = pixels[i];
      AreaRow(in_p, first.data(), weights.data(), wide_weights, taps, dst_w, row_p);
      row_source = y.src_index;
    }

    if (y.dst_index != prev_dy) {
      flush(prev_dy);
      for (int dx = 0; dx < row_len; dx++) sum_p[dx] = beta * row_p[dx];
      prev_dy = y.dst_index;
    } else {
      for (int dx = 0; dx < row_len; dx++) sum_p[dx] += beta * row_p[dx];
    }
  }
  if (dst_h > 0) flush(prev_dy);
}

void ResizeAreaGeneral(const uint8_t* src, size_t src_step, int src_w, int src_h,
                       uint8_t* dst, int dst_w, int dst_h, double scale_x, double scale_y) {
  ResizeAreaTables(src, src_step, src_w, ComputeAreaWeights(src_w, dst_w, kChannels, scale_x),
                   ComputeAreaWeights(src_h, dst_h, 1, scale_y), dst, dst_w, dst_h);
}

// Area weights for the source span [start, start + span) split into dst_size
// equal cells: each source pixel weighs the fraction of the cell it covers.
std::vector<AreaWeight> ComputeSubpixelWeights(double start, double span, int src_size,
                                               int dst_size, int channels) {
  std::vector<AreaWeight> table;
  table.reserve(static_cast<size_t>(dst_size) * 3);
  const double cell = span / dst_size;
  for (int d = 0; d < dst_size; d++) {
    const double a = start + d * cell;
    const double b = d + 1 == dst_size ? start + span : a + cell;
    const int i0 = std::max(0, static_cast<int>(std::floor(a)));
    const int i1 = std::min(src_size - 1, static_cast<int>(std::ceil(b)) - 1);
    const size_t before = table.size();
    for (int i = i0; i <= i1; i++) {
      const double overlap = std::min(b, i + 1.0) - std::max(a, static_cast<double>(i));
      if (overlap > 1e-9) {
        table.push_back({i * channels, d * channels, static_cast<float>(overlap / (b - a))});
      }
    }
    if (table.size() == before) {  // degenerate cell: nearest pixel
      const int i = std::min(src_size - 1, std::max(0, static_cast<int>(a)));
      table.push_back({i * channels, d * channels, 1.f});
    }
  }
  return table;
}

// --- enlargement: bilinear in "area mode" ----------------------------------

// OpenCV's INTER_RESIZE_COEF_BITS: weights are 11-bit fixed point.
constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;

// cv::saturate_cast<short>(float).
inline int16_t SaturateToShort(float value) {
  long rounded = std::lrintf(value);
  if (rounded < INT16_MIN) return INT16_MIN;
  if (rounded > INT16_MAX) return INT16_MAX;
  return static_cast<int16_t>(rounded);
}

inline int OpenCvFloorF(float value) {
  int i = static_cast<int>(value);
  return i - (i > value);
}

// Source index and its two 11-bit weights for one destination coordinate,
// from hal::resize with interpolation == INTER_AREA and a scale below 1:
//   s = floor(d * scale); f = (d + 1) - (s + 1) * inv_scale;
//   f = f <= 0 ? 0 : f - floor(f)
// i.e. pixel replication with a linear blend where a cell boundary falls
// inside a destination pixel.
struct LinearTap {
  int src;  // first source sample (pixel, not channel)
  int16_t w0;
  int16_t w1;
};

std::vector<LinearTap> ComputeLinearTaps(int src_size, int dst_size, double scale,
                                         double inv_scale, bool clamp_last, int* limit) {
  std::vector<LinearTap> taps(static_cast<size_t>(dst_size));
  *limit = dst_size;
  for (int d = 0; d < dst_size; d++) {
    int s = OpenCvFloor(d * scale);
    float f = static_cast<float>((d + 1) - (s + 1) * inv_scale);
    f = f <= 0 ? 0.f : f - static_cast<float>(OpenCvFloorF(f));
    if (s < 0) {
      f = 0.f;
      s = 0;
    }
    if (clamp_last && s + 1 >= src_size) {
      *limit = std::min(*limit, d);
      if (s >= src_size - 1) {
        f = 0.f;
        s = src_size - 1;
      }
    }
    taps[static_cast<size_t>(d)] = {s, SaturateToShort((1.f - f) * kCoefScale),
                                    SaturateToShort(f * kCoefScale)};
  }
  return taps;
}

// The horizontal pass of ResizeLinearAreaMode for one source row: output
// sample d*3+c is (p[c] * w0 + p[c + 3] * w1) >> 4 for the pixel's two taps,
// the >> 4 being the first step of OpenCV's vertical kernel (done here once
// per source row instead of once per use). The values fit in int16: at most
// 255 * 2049 >> 4 = 32655. `out` has one element of padding.
#if defined(__x86_64__)
// LinearRow's blended pixels two at a time in one 256-bit vector (pixel d in
// the low lane, d + 1 in the high lane): the same exact pmaddwd sums as the
// SSE2 loop, with the (p[c], p[c + 3]) pairs made by one pshufb and both
// pixels' packed (w0, w1) read straight from the taps (LinearTap is
// {int src; int16 w0; int16 w1}, so taps[d..d+1] is src, w, src, w as int32).
// Handles pixels [0, vec_end) in pairs and returns the first pixel left.
__attribute__((target("avx2"))) int LinearRowAvx2(const uint8_t* in, const LinearTap* taps,
                                                   int vec_end, int16_t* out) {
  static_assert(sizeof(LinearTap) == 8, "LinearTap must be {int32, int16, int16}");
  const int8_t z = -128;  // pshufb: zero byte
  const __m256i pairs_of = _mm256_setr_epi8(0, z, 3, z, 1, z, 4, z, 2, z, 5, z, z, z, z, z,  //
                                            0, z, 3, z, 1, z, 4, z, 2, z, 5, z, z, z, z, z);
  const __m256i weight_lanes = _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3);
  int d = 0;
  for (; d + 2 <= vec_end; d += 2) {
    const __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + taps[d].src * kChannels));
    const __m128i b =
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + taps[d + 1].src * kChannels));
    const __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
    const __m256i pairs = _mm256_shuffle_epi8(bytes, pairs_of);
    const __m256i two_taps =
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(taps + d)));
    const __m256i weights = _mm256_permutevar8x32_epi32(two_taps, weight_lanes);
    const __m256i sums = _mm256_srai_epi32(_mm256_madd_epi16(pairs, weights), 4);
    const __m256i words = _mm256_packs_epi32(sums, sums);
    // Four int16 per pixel, the fourth overwritten by the next pixel (or padding).
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + d * kChannels),
                     _mm256_castsi256_si128(words));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (d + 1) * kChannels),
                     _mm256_extracti128_si256(words, 1));
  }
  return d;
}

#endif

BETON_HOT void LinearRow(const uint8_t* in, int src_w, const LinearTap* taps, int x_limit,
                         int vec_end, int dst_w, int16_t* out) {
  int d = 0;
#if defined(__x86_64__)
  if (kHasAvx2) d = LinearRowAvx2(in, taps, vec_end, out);
#else
  (void)vec_end;
#endif
#if defined(__SSE2__)
  // One pixel per iteration: its six source bytes as (p[c], p[c + 3]) int16
  // pairs, one pmaddwd with (w0, w1) gives the three exact int32 sums.
  // Reads 8 bytes from the pixel's first: only where that stays inside the row.
  const __m128i zero = _mm_setzero_si128();
  for (; d < x_limit && taps[d].src + 3 <= src_w; d++) {
    const LinearTap& t = taps[d];
    __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + t.src * kChannels));
    __m128i words = _mm_unpacklo_epi8(bytes, zero);
    __m128i pairs = _mm_unpacklo_epi16(words, _mm_srli_si128(words, 6));
    __m128i weights = _mm_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(t.w0)) |
                                     (static_cast<int32_t>(t.w1) << 16));
    __m128i sums = _mm_srai_epi32(_mm_madd_epi16(pairs, weights), 4);
    // Four int16 stored, the fourth overwritten by pixel d + 1 (or padding).
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + d * kChannels), _mm_packs_epi32(sums, sums));
  }
#endif
  for (; d < x_limit; d++) {
    const LinearTap& t = taps[d];
    const uint8_t* p = in + static_cast<size_t>(t.src) * kChannels;
    for (int c = 0; c < kChannels; c++) {
      out[d * kChannels + c] = static_cast<int16_t>((p[c] * t.w0 + p[c + kChannels] * t.w1) >> 4);
    }
  }
  for (; d < dst_w; d++) {
    const uint8_t* p = in + static_cast<size_t>(taps[d].src) * kChannels;
    for (int c = 0; c < kChannels; c++) {
      out[d * kChannels + c] = static_cast<int16_t>((p[c] * kCoefScale) >> 4);
    }
  }
}

// The vertical pass, VResizeLinearVec_32s8u on rows already shifted by 4:
// ((b0 * s0) >> 16) + ((b1 * s1) >> 16), a rounding shift by 2, unsigned
// saturation. With s < 2^15 and b <= 2048 each product's high half is
// exactly pmulhw's result, as in OpenCV's SIMD kernel.
BETON_HOT void LinearColumn(const int16_t* s0, const int16_t* s1, int16_t b0, int16_t b1,
                            size_t n, uint8_t* out) {
  size_t x = 0;
#if defined(__SSE2__)
  const __m128i w0 = _mm_set1_epi16(b0);
  const __m128i w1 = _mm_set1_epi16(b1);
  const __m128i two = _mm_set1_epi16(2);
  for (; x + 16 <= n; x += 16) {
    __m128i lo = _mm_add_epi16(
        _mm_mulhi_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s0 + x)), w0),
        _mm_mulhi_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s1 + x)), w1));
    __m128i hi = _mm_add_epi16(
        _mm_mulhi_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s0 + x + 8)), w0),
        _mm_mulhi_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s1 + x + 8)), w1));
    lo = _mm_srai_epi16(_mm_add_epi16(lo, two), 2);
    hi = _mm_srai_epi16(_mm_add_epi16(hi, two), 2);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x), _mm_packus_epi16(lo, hi));
  }
#endif
  for (; x < n; x++) {
    int32_t v = ((b0 * s0[x]) >> 16) + ((b1 * s1[x]) >> 16);
    v = (v + 2) >> 2;
    out[x] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
}

void ResizeLinearAreaMode(const uint8_t* src, size_t src_step, int src_w, int src_h,
                          uint8_t* dst, int dst_w, int dst_h, double scale_x,
                          double inv_scale_x, double scale_y, double inv_scale_y) {
  // Horizontal taps: past `x_limit` OpenCV copies the (clamped) pixel at full
  // weight; vertical taps are not clamped, the second row is clipped instead.
  int x_limit = 0;
  int unused = 0;
  const std::vector<LinearTap> x_taps =
      ComputeLinearTaps(src_w, dst_w, scale_x, inv_scale_x, true, &x_limit);
  const std::vector<LinearTap> y_taps =
      ComputeLinearTaps(src_h, dst_h, scale_y, inv_scale_y, false, &unused);
  const size_t row_len = static_cast<size_t>(dst_w) * kChannels;
  // The vector kernels read 8 bytes from a pixel's first: only pixels whose
  // source starts 3 or more pixels before the row's end (src only grows with d).
  int vec_end = 0;
  while (vec_end < x_limit && x_taps[static_cast<size_t>(vec_end)].src + 3 <= src_w) vec_end++;

  // Horizontally resampled source rows (weight sum 2048, shifted by 4),
  // cached by source row index: consecutive output rows mostly share their
  // sources. One element of padding for LinearRow's 4-wide stores. Kept per
  // thread between calls (every value is written before it is read), which
  // saves two allocations per image.
  thread_local std::vector<int16_t> rows[2];
  rows[0].resize(row_len + 1);
  rows[1].resize(row_len + 1);
  int row_index[2] = {-1, -1};
  auto horizontal = [&](int sy, int16_t* out) {
    LinearRow(src + static_cast<size_t>(sy) * src_step, src_w, x_taps.data(), x_limit, vec_end,
              dst_w, out);
  };

  for (int dy = 0; dy < dst_h; dy++) {
    const LinearTap& t = y_taps[static_cast<size_t>(dy)];
    // OpenCV's clip(sy, 0, src_h) for the two rows of the 2-tap kernel.
    const int sy0 = std::min(std::max(t.src, 0), src_h - 1);
    const int sy1 = std::min(std::max(t.src + 1, 0), src_h - 1);
    // rows[0] holds sy0 and rows[1] sy1; source rows only move forwards, so
    // yesterday's second row is often today's first.
    if (row_index[0] != sy0) {
      if (row_index[1] == sy0) {
        std::swap(rows[0], rows[1]);
        std::swap(row_index[0], row_index[1]);
      } else {
        horizontal(sy0, rows[0].data());
        row_index[0] = sy0;
      }
    }
    if (sy1 != sy0 && row_index[1] != sy1) {
      horizontal(sy1, rows[1].data());
      row_index[1] = sy1;
    }
    const int16_t* s0 = rows[0].data();
    const int16_t* s1 = sy1 == sy0 ? s0 : rows[1].data();
    LinearColumn(s0, s1, t.w0, t.w1, row_len, dst + static_cast<size_t>(dy) * row_len);
  }
}

}  // namespace

void ResizeAreaShrinkRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                         uint8_t* dst, int dst_w, int dst_h) {
  // cv::resize copies when the size does not change.
  if (dst_w == src_w && dst_h == src_h) {
    const size_t row_len = static_cast<size_t>(src_w) * kChannels;
    for (int y = 0; y < src_h; y++) {
      std::memmove(dst + y * row_len, src + y * src_stride, row_len);
    }
    return;
  }

  // cv::resize derives the scale as 1 / (dst / src) in double, not src / dst;
  // the two can differ in the last bit, which decides the integer test.
  double inv_scale_x = static_cast<double>(dst_w) / src_w;
  double inv_scale_y = static_cast<double>(dst_h) / src_h;
  double scale_x = 1. / inv_scale_x;
  double scale_y = 1. / inv_scale_y;
  int int_scale_x = static_cast<int>(std::lrint(scale_x));
  int int_scale_y = static_cast<int>(std::lrint(scale_y));
  bool integer_scales = std::abs(scale_x - int_scale_x) < DBL_EPSILON &&
                        std::abs(scale_y - int_scale_y) < DBL_EPSILON;

  if (integer_scales) {
    ResizeAreaFast(src, src_stride, src_w, src_h, dst, dst_w, dst_h, int_scale_x, int_scale_y);
  } else {
    ResizeAreaGeneral(src, src_stride, src_w, src_h, dst, dst_w, dst_h, scale_x, scale_y);
  }
}

void ResizeAreaSubpixelRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                           double x, double y, double w, double h, uint8_t* dst, int dst_w,
                           int dst_h) {
  ResizeAreaTables(src, src_stride, src_w, ComputeSubpixelWeights(x, w, src_w, dst_w, kChannels),
                   ComputeSubpixelWeights(y, h, src_h, dst_h, 1), dst, dst_w, dst_h);
}

void ResizeInterAreaRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                        uint8_t* dst, int dst_w, int dst_h) {
  if (dst_w <= src_w && dst_h <= src_h) {
    ResizeAreaShrinkRGB(src, src_stride, src_w, src_h, dst, dst_w, dst_h);
    return;
  }
  double inv_scale_x = static_cast<double>(dst_w) / src_w;
  double inv_scale_y = static_cast<double>(dst_h) / src_h;
  ResizeLinearAreaMode(src, src_stride, src_w, src_h, dst, dst_w, dst_h, 1. / inv_scale_x,
                       inv_scale_x, 1. / inv_scale_y, inv_scale_y);
}

}  // namespace beton

// Shrinking 8-bit RGB images by pixel-area averaging, reproducing OpenCV's
// cv2.resize(..., interpolation=INTER_AREA) (OpenCV 4.x, imgproc/resize.cpp)
// bit for bit, because FFCV resizes with it before storing images and a
// re-implementation of the writer must produce the same pixels.
//
// OpenCV picks one of two algorithms, and so do we:
//  * "fast area" when both scale factors are integers: plain integer box
//    sums. 2x2 uses (sum + 2) >> 2 (its SIMD kernel), every other factor
//    sum * (1.f / area) rounded half-to-even.
//  * the general path otherwise: per-axis tables of fractional source-pixel
//    weights, float accumulation in OpenCV's exact order, then cvRound.
// Every double/float operation below mirrors OpenCV's expression by
// expression; reordering or fusing any of them (hence -ffp-contract=off in
// binding.gyp) changes rounding and breaks exactness.

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "args.h"
#include "beton_native.h"
#include "errors.h"

namespace beton {
namespace {

constexpr int kChannels = 3;

// cv::saturate_cast<uchar>(float): cvRound (round half to even under the
// default FP environment, like _mm_cvtss_si32) and clamp.
inline uint8_t SaturateToByte(float value) {
  long rounded = std::lrintf(value);
  if (rounded < 0) return 0;
  if (rounded > 255) return 255;
  return static_cast<uint8_t>(rounded);
}

// --- integer scale factors ("resizeAreaFast_") -----------------------------

void ResizeAreaFast(const uint8_t* src, int src_w, int src_h, uint8_t* dst,
                    int dst_w, int dst_h, int scale_x, int scale_y) {
  const size_t src_step = static_cast<size_t>(src_w) * kChannels;
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

void ResizeAreaGeneral(const uint8_t* src, int src_w, int src_h, uint8_t* dst,
                       int dst_w, int dst_h, double scale_x, double scale_y) {
  const std::vector<AreaWeight> x_weights = ComputeAreaWeights(src_w, dst_w, kChannels, scale_x);
  const std::vector<AreaWeight> y_weights = ComputeAreaWeights(src_h, dst_h, 1, scale_y);
  const size_t src_step = static_cast<size_t>(src_w) * kChannels;
  const int row_len = dst_w * kChannels;

  // `row` holds one source row resampled horizontally; `sum` accumulates the
  // weighted rows of the current output row. Accumulation order and float
  // precision are OpenCV's (ResizeArea_Invoker with WT = float).
  std::vector<float> row(static_cast<size_t>(row_len));
  std::vector<float> sum(static_cast<size_t>(row_len), 0.f);
  int prev_dy = y_weights.empty() ? 0 : y_weights[0].dst_index;

  auto flush = [&](int dy) {
    uint8_t* out = dst + static_cast<size_t>(dy) * row_len;
    for (int dx = 0; dx < row_len; dx++) out[dx] = SaturateToByte(sum[dx]);
  };

  for (const AreaWeight& y : y_weights) {
    const float beta = y.alpha;
    const uint8_t* in = src + static_cast<size_t>(y.src_index) * src_step;

    std::fill(row.begin(), row.end(), 0.f);
    for (const AreaWeight& x : x_weights) {
      const float alpha = x.alpha;
      for (int c = 0; c < kChannels; c++) {
        row[x.dst_index + c] = row[x.dst_index + c] + in[x.src_index + c] * alpha;
      }
    }

    if (y.dst_index != prev_dy) {
      flush(prev_dy);
      for (int dx = 0; dx < row_len; dx++) sum[dx] = beta * row[dx];
      prev_dy = y.dst_index;
    } else {
      for (int dx = 0; dx < row_len; dx++) sum[dx] += beta * row[dx];
    }
  }
  if (dst_h > 0) flush(prev_dy);
}

}  // namespace

Napi::Value ResizeAreaRGB(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr int64_t kMaxSide = 1 << 20;  // keeps every int index below 2^31
  ByteView src = RequireBytes(info, 0, "src");
  int src_w = static_cast<int>(RequireInteger(info, 1, "srcWidth", 1, kMaxSide));
  int src_h = static_cast<int>(RequireInteger(info, 2, "srcHeight", 1, kMaxSide));
  ByteView dst = RequireBytes(info, 3, "dst");
  int dst_w = static_cast<int>(RequireInteger(info, 4, "dstWidth", 1, kMaxSide));
  int dst_h = static_cast<int>(RequireInteger(info, 5, "dstHeight", 1, kMaxSide));

  if (dst_w > src_w || dst_h > src_h) {
    throw Napi::RangeError::New(env, "resizeAreaRGB only shrinks: dst must fit in src");
  }
  size_t src_needed = static_cast<size_t>(src_w) * src_h * kChannels;
  size_t dst_needed = static_cast<size_t>(dst_w) * dst_h * kChannels;
  if (src.length < src_needed || dst.length < dst_needed) {
    throw MakeError(env, kErrBufferSize,
                    src.length < src_needed ? "src is smaller than srcWidth*srcHeight*3"
                                            : "dst is smaller than dstWidth*dstHeight*3");
  }
  if (src_needed > (size_t{1} << 31)) {
    throw Napi::RangeError::New(env, "source image too large (over 2 GiB)");
  }

  // cv::resize copies when the size does not change.
  if (dst_w == src_w && dst_h == src_h) {
    std::memmove(dst.data, src.data, src_needed);
    return env.Undefined();
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
    ResizeAreaFast(src.data, src_w, src_h, dst.data, dst_w, dst_h, int_scale_x, int_scale_y);
  } else {
    ResizeAreaGeneral(src.data, src_w, src_h, dst.data, dst_w, dst_h, scale_x, scale_y);
  }
  return env.Undefined();
}

}  // namespace beton

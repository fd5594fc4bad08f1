// Resizing of 8-bit RGB images like OpenCV's cv2.resize(..., INTER_AREA),
// callable from C++ on a sub-rectangle of a larger image.
//
// Both functions read `src_w` x `src_h` pixels starting at `src` (the top-left
// pixel of the rectangle), with consecutive rows `src_stride` bytes apart,
// and write a tightly packed `dst_w` x `dst_h` RGB image to `dst`. `dst` must
// not overlap the source rectangle. Callers guarantee 1 <= sides <= 2^20 and
// that src_w * src_h * 3 and dst_w * dst_h * 3 stay below 2^31.
#pragma once

#include <cstddef>
#include <cstdint>

namespace beton {

// Shrinking only (dst_w <= src_w and dst_h <= src_h): bit-exact with
// cv2.resize(INTER_AREA) on the same pixels. Same size is a plain copy.
void ResizeAreaShrinkRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                         uint8_t* dst, int dst_w, int dst_h);

// Any sizes, following cv2.resize(INTER_AREA)'s dispatch: a copy when the size
// is unchanged, the exact area average when both axes shrink, and otherwise
// (any axis enlarges) OpenCV's bilinear "area mode" with 11-bit fixed-point
// weights. The enlargement path follows OpenCV's formulas and rounds like
// its SIMD kernel everywhere. Against the OpenCV FFCV links (4.6, x86-64) it
// is bit-exact: 400 enlarging or one-side-enlarging crops of noise in
// test/interop/loader-pixels.test.ts. An OpenCV build whose scalar tail ran
// instead (no SIMD) could differ by one level on a few pixels.
void ResizeInterAreaRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                        uint8_t* dst, int dst_w, int dst_h);

// Area average of the fractional source rectangle [x, x + w) x [y, y + h)
// (inside [0, src_w] x [0, src_h]) into dst_w x dst_h cells: each output
// pixel is the mean of the source area its cell covers, partial pixels
// weighted by coverage. The same float accumulation as the exact path, but
// not an OpenCV algorithm (OpenCV cannot resize a sub-pixel rectangle); for
// the DCT-scaled decode, where the crop edges fall between scaled pixels.
void ResizeAreaSubpixelRGB(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                           double x, double y, double w, double h, uint8_t* dst, int dst_w,
                           int dst_h);

}  // namespace beton

/**
 * cv2.resize(INTER_AREA) on packed RGB, bit-exact with OpenCV: the writer's shrink
 * (beton_native's resizeAreaRGB) and the loader's crop-and-resize of raw-stored images
 * (beton_turbo's cropResizeRGB, which needs no libturbojpeg).
 */
import { argumentError, outputBytes, requireBytes, requireCapacity, requireInteger } from './arguments.js';
import { loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';
import { callTurbo } from './turbo-addon.js';

/** Largest side the resize accepts (keeps C++ indices in 32 bits). */
export const RESIZE_MAX_DIMENSION = 1 << 20;

/** Checks a packed RGB source and its size (its capacity is checked once the rest is). */
function requireSource(src: Uint8Array, srcWidth: number, srcHeight: number): void {
  requireBytes(src, 'src');
  requireInteger(srcWidth, 'srcWidth', 1, RESIZE_MAX_DIMENSION);
  requireInteger(srcHeight, 'srcHeight', 1, RESIZE_MAX_DIMENSION);
}

/**
 * Shrinks packed RGB like cv2.resize(INTER_AREA), bit-exactly; returns the
 * dstWidth*dstHeight*3 result (a view of `dst` when given). Note the argument
 * order differs from the raw addon: `dst` is last so that it can be omitted.
 */
export function resizeAreaRGB(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  dstWidth: number,
  dstHeight: number,
  dst?: Uint8Array,
): Uint8Array {
  requireSource(src, srcWidth, srcHeight);
  requireInteger(dstWidth, 'dstWidth', 1, srcWidth);
  requireInteger(dstHeight, 'dstHeight', 1, srcHeight);
  requireCapacity(src, srcWidth * srcHeight * 3, 'src');
  const needed = dstWidth * dstHeight * 3;
  const target = outputBytes(dst, needed);
  callAddon(() => {
    loadNative().resizeAreaRGB(src, srcWidth, srcHeight, target, dstWidth, dstHeight);
  });
  return target.subarray(0, needed);
}

/** A rectangle in pixel coordinates: left column, top row, width, height. */
export interface CropRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Checks that `crop` is a non-empty integer rectangle inside width x height (when given). */
export function requireCrop(crop: unknown, width?: number, height?: number): CropRect {
  if (typeof crop !== 'object' || crop === null) throw argumentError('crop must be {x, y, w, h}');
  const { x, y, w, h } = crop as Record<string, unknown>;
  const maxX = width === undefined ? RESIZE_MAX_DIMENSION : width - 1;
  const maxY = height === undefined ? RESIZE_MAX_DIMENSION : height - 1;
  const rect: CropRect = {
    x: requireInteger(x, 'crop.x', 0, maxX),
    y: requireInteger(y, 'crop.y', 0, maxY),
    w: 0,
    h: 0,
  };
  rect.w = requireInteger(w, 'crop.w', 1, (width ?? RESIZE_MAX_DIMENSION + 1) - rect.x);
  rect.h = requireInteger(h, 'crop.h', 1, (height ?? RESIZE_MAX_DIMENSION + 1) - rect.y);
  return rect;
}

/**
 * cv2.resize(src[y:y+h, x:x+w], (outWidth, outHeight), interpolation=INTER_AREA)
 * for packed RGB stored without compression (FFCV's raw image mode): reads
 * the crop in place, no copy. Bit-exact with OpenCV when shrinking (and
 * for same size, a copy); when enlarging, OpenCV's bilinear "area mode" with
 * its fixed-point weights, rounded like its SIMD kernel (it may differ from
 * OpenCV by one level on a few pixels; constant images stay exact).
 * Returns the outWidth*outHeight*3 result (a view of `dst` when given).
 */
export function cropResizeRGB(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  crop: CropRect,
  outWidth: number,
  outHeight: number,
  dst?: Uint8Array,
): Uint8Array {
  requireSource(src, srcWidth, srcHeight);
  const rect = requireCrop(crop, srcWidth, srcHeight);
  requireInteger(outWidth, 'outWidth', 1, RESIZE_MAX_DIMENSION);
  requireInteger(outHeight, 'outHeight', 1, RESIZE_MAX_DIMENSION);
  requireCapacity(src, srcWidth * srcHeight * 3, 'src');
  const needed = outWidth * outHeight * 3;
  const target = outputBytes(dst, needed);
  callTurbo((addon) => {
    addon.cropResizeRGB(src, srcWidth, srcHeight, rect.x, rect.y, rect.w, rect.h, target, outWidth, outHeight);
  });
  return target.subarray(0, needed);
}

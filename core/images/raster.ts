// Checks and scaling shared by the hand-written raster decoders (BMP, PNM).
import { FIX_DATA, FIX_SIZE, ImageReadError, MAX_INPUT_PIXELS, unreadable } from './read-error.js';

export function checkSize(width: number, height: number, kind: string): void {
  if (!(width >= 1 && height >= 1)) throw new ImageReadError(`the ${kind} header is corrupt (size ${width}x${height}); ${FIX_DATA}`);
  if (width * height > MAX_INPUT_PIXELS) {
    throw unreadable(
      `the image is too large (${width}x${height}; the limit is ${(MAX_INPUT_PIXELS / 1e6).toFixed(0)} megapixels)`,
      FIX_SIZE,
    );
  }
}

export const truncatedAs = (kind: string): ImageReadError =>
  unreadable(`the file is truncated (the ${kind} data ends before the image is complete)`, FIX_DATA);

/** Scales a bit-field value of `bits` bits to 0..255. */
export const scaleTo8 = (v: number, max: number): number => (max === 255 ? v : Math.round((v * 255) / max));

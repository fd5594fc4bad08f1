import { cropResizeRGB, jpegDecodeRGB } from '../native/index.js';
import { decodeCropResize, decodeFull, decodePath } from '../native/turbo.js';

/** The hot path: libjpeg-turbo from npm (DCT scaling + crop) when it loads, else the system libjpeg. */
const TURBO = decodePath() === 'turbojpeg-npm';

// Decodes are strict: a JPEG that libjpeg can only half-read (a warning) is a corrupt
// sample, reported by name, not grey pixels (FFCV ignores the warning). Fast IDCT as FFCV.
const OPTIONS = { fastDct: true, strict: true } as const;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Decodes a whole stored JPEG into `dst` (width × height × 3 RGB). */
export function decodeJpegInto(jpeg: Uint8Array, dst: Uint8Array): void {
  if (TURBO) decodeFull(jpeg, dst, OPTIONS);
  else jpegDecodeRGB(jpeg, dst, OPTIONS);
}

/**
 * Crops a stored image (packed RGB or JPEG, `width` × `height`) and resizes the crop to
 * outW × outH into `dst` (INTER_AREA, as FFCV). With libjpeg-turbo only the crop is decoded,
 * at the smallest DCT scale that still covers the output; the system libjpeg decodes the
 * whole image into a scratch buffer kept here between calls (one per decoder).
 */
export class CropResizer {
  private full = new Uint8Array(0);

  run(raw: boolean, bytes: Uint8Array, width: number, height: number, rect: Rect, outW: number, outH: number, dst: Uint8Array): void {
    if (raw) return void cropResizeRGB(bytes, width, height, rect, outW, outH, dst);
    if (TURBO) return void decodeCropResize(bytes, dst, rect, outW, outH, OPTIONS);
    const n = width * height * 3;
    if (this.full.byteLength < n) this.full = new Uint8Array(n);
    const px = this.full.subarray(0, n);
    jpegDecodeRGB(bytes, px, OPTIONS);
    cropResizeRGB(px, width, height, rect, outW, outH, dst);
  }
}

import type { DecodeKernels, Rect } from '../fields/field-type.js';
import { BetonFormatError } from '../format/errors.js';
import { cropResizeRGB } from '../native/area-resize.js';
import { jpegDecodeRGB } from '../native/jpeg-codec.js';
import { decodeCropResize, decodeFull, decodePath } from '../native/turbo.js';

/** The hot path: libjpeg-turbo from npm (region decode, optional DCT scaling) when it loads, else the system libjpeg. */
const TURBO = decodePath() === 'turbojpeg-npm';

// Decodes are strict: a JPEG that libjpeg can only half-read (a warning) is a corrupt
// sample, reported by name, not grey pixels (FFCV ignores the warning). Fast IDCT as FFCV.
const OPTIONS = { fastDct: true, strict: true } as const;

export type { Rect } from '../fields/field-type.js';

/** How the crop decoders turn a stored JPEG into pixels. */
export interface ImageDecodeOptions {
  /**
   * false (default): FFCV's pixels exactly — the crop decoded at full scale (fast IDCT, as
   * FFCV's tjDecompress2 with TJFLAG_FASTDCT) and resized with OpenCV's INTER_AREA.
   * true: decode the crop at the smallest DCT scale (1/2, 1/4, 1/8) that still covers the
   * output, then area-resize: faster on large crops, pixels differ slightly from FFCV's
   * (docs/loader.md, "Fast decode", has the measured gain and PSNR).
   */
  fastDecode?: boolean;
}

/** The Reader's check, for the system-libjpeg path (TurboJPEG checks before decoding). */
function checkSize(got: { width: number; height: number }, width: number, height: number): void {
  if (got.width !== width || got.height !== height) {
    throw new BetonFormatError('CORRUPT_DATA', `JPEG is ${got.width}x${got.height} but the metadata says ${width}x${height}`);
  }
}

/**
 * Decodes a whole stored JPEG into `dst` (width × height × 3 RGB). Given the metadata's
 * `width` × `height` (the decoders always give them), a JPEG of another size is a corrupt
 * sample, as the Reader says.
 */
export function decodeJpegInto(jpeg: Uint8Array, dst: Uint8Array, width?: number, height?: number): void {
  const expect = width !== undefined && height !== undefined ? { width, height } : undefined;
  if (TURBO) decodeFull(jpeg, dst, expect ? { ...OPTIONS, expect } : OPTIONS);
  else {
    const got = jpegDecodeRGB(jpeg, dst, OPTIONS);
    if (expect) checkSize(got, expect.width, expect.height);
  }
}

/**
 * Crops a stored image (packed RGB or JPEG, `width` × `height`) and resizes the crop to
 * outW × outH into `dst` with INTER_AREA, as FFCV. By default the bytes equal FFCV's
 * (full-scale decode, then OpenCV's resize); with libjpeg-turbo only the iMCU rows and
 * columns around the crop are decoded, which gives the same pixels as FFCV's whole-image
 * decode (tested against FFCV, test/interop/loader-pixels.test.ts) for less work.
 * `fastDecode` also decodes at a reduced DCT scale. The system libjpeg (no TurboJPEG)
 * decodes the whole image into a scratch buffer kept here between calls (one per decoder).
 */
export class CropResizer {
  private full = new Uint8Array(0);
  private readonly turboOptions: { fastDct: true; strict: true; scaling: boolean; expect: { width: number; height: number } };

  constructor(options: ImageDecodeOptions = {}) {
    this.turboOptions = { ...OPTIONS, scaling: options.fastDecode === true, expect: { width: 0, height: 0 } };
  }

  /** `width` × `height` come from the metadata; a JPEG of another size is a corrupt sample. */
  run(raw: boolean, bytes: Uint8Array, width: number, height: number, rect: Rect, outW: number, outH: number, dst: Uint8Array): void {
    if (raw) return void cropResizeRGB(bytes, width, height, rect, outW, outH, dst);
    if (TURBO) {
      // One options object per decoder, updated in place: no allocation per image.
      this.turboOptions.expect.width = width;
      this.turboOptions.expect.height = height;
      return void decodeCropResize(bytes, dst, rect, outW, outH, this.turboOptions);
    }
    const n = width * height * 3;
    if (this.full.byteLength < n) this.full = new Uint8Array(n);
    const px = this.full.subarray(0, n);
    checkSize(jpegDecodeRGB(bytes, px, OPTIONS), width, height);
    cropResizeRGB(px, width, height, rect, outW, outH, dst);
  }
}

/** The native kernels the field types' decoders use (core/fields stays pure). */
export function decodeKernels(options: ImageDecodeOptions = {}): DecodeKernels {
  return { decodeJpegInto, cropResizer: () => new CropResizer(options) };
}

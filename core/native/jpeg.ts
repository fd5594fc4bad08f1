import type { RGBPixels } from '../fields/image-codec.js';
import { resizeAreaRGB } from './area-resize.js';
import { jpegDecodeRGB, jpegEncodeRGB } from './jpeg-codec.js';

/** OpenCV INTER_AREA, reproduced exactly (FFCV's max_resolution resize). */
export function resizeArea(src: RGBPixels, width: number, height: number): RGBPixels {
  return { data: resizeAreaRGB(src.data, src.width, src.height, width, height), width, height };
}

/** Byte-identical to OpenCV's imencode('.jpg') on libjpeg-turbo (baseline, 4:2:0, JFIF). */
export function encodeJpeg(src: RGBPixels, quality: number): Uint8Array {
  const b = jpegEncodeRGB(src.data, src.width, src.height, quality);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * FFCV's decode: libjpeg-turbo to RGB with the fast integer IDCT. Like FFCV, recoverable
 * corruption (a cut-off scan) yields grey-filled pixels rather than an error.
 */
export function decodeJpeg(bytes: Uint8Array): RGBPixels {
  const { data, width, height } = jpegDecodeRGB(bytes, undefined, { fastDct: true });
  return { data, width, height };
}

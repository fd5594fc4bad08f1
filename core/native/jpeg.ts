import type { RGBPixels } from '../fields/image-codec.js';
import { native } from './index.js';

export function resizeArea(src: RGBPixels, width: number, height: number): RGBPixels {
  const dst = new Uint8Array(width * height * 3);
  native.resizeAreaRGB(src.data, src.width, src.height, dst, width, height);
  return { data: dst, width, height };
}

export function encodeJpeg(src: RGBPixels, quality: number): Uint8Array {
  const b = native.jpegEncodeRGB(src.data, src.width, src.height, quality);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** FFCV's decode: libjpeg-turbo to RGB with the fast integer IDCT. */
export function decodeJpeg(bytes: Uint8Array): RGBPixels {
  const info = native.jpegInfo(bytes);
  const dst = new Uint8Array(info.width * info.height * 3);
  const { width, height } = native.jpegDecodeRGB(bytes, dst, true);
  return { data: dst, width, height };
}


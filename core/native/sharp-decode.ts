/**
 * The loader's fallback JPEG decode when libjpeg-turbo cannot be loaded (decodePath() is
 * 'sharp', core/native/turbo.ts): sharp (libvips), much slower and with slightly different
 * pixels. sharp is imported only when the fallback is used (it is a heavy native module).
 */
import type SharpModule from 'sharp';

import { requireBytes, requireSide } from './arguments.js';
import { type CropRect, RESIZE_MAX_DIMENSION, requireCrop } from './area-resize.js';
import { NativeError } from './native-error.js';

type Sharp = typeof SharpModule;

let sharpModule: Promise<Sharp> | undefined;

/** sharp is imported only when the fallback is used (it is a heavy native module). */
async function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((m) => m.default);
  return sharpModule;
}

/**
 * Fallback for decodeCropResize (core/native/turbo.ts) when libjpeg-turbo cannot be loaded:
 * `sharp(jpeg).extract(crop).resize(outW, outH, { kernel: 'linear', fit: 'fill' }).raw()`.
 *
 * MUCH slower than the TurboJPEG path (asynchronous, through libvips and the
 * libuv thread pool, full-image decode, several copies: expect a fraction of
 * the throughput), and its pixels differ a little: libvips decodes with
 * mozjpeg's accurate IDCT and has no area kernel (linear is the closest
 * match). Use it only so that datasets still load without libjpeg-turbo.
 */
export async function decodeCropResizeSharp(src: Uint8Array, dst: Uint8Array, crop: CropRect, outW: number, outH: number): Promise<void> {
  requireBytes(src, 'src');
  requireBytes(dst, 'dst');
  const rect = requireCrop(crop);
  requireSide(outW, 'outW');
  requireSide(outH, 'outH');
  const needed = outW * outH * 3;
  if (dst.length < needed) {
    throw new NativeError('NATIVE_BUFFER_SIZE', `dst holds ${dst.length} bytes but ${needed} are needed`);
  }
  const sharp = await loadSharp();
  let data: Buffer;
  try {
    data = await sharp(src, { failOn: 'none' })
      .extract({ left: rect.x, top: rect.y, width: rect.w, height: rect.h })
      .resize(outW, outH, { kernel: 'linear', fit: 'fill', fastShrinkOnLoad: true })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer();
  } catch (error) {
    throw new NativeError('NATIVE_JPEG', `sharp could not decode the JPEG: ${String(error)}`, {
      cause: error,
    });
  }
  if (data.length !== needed) {
    throw new NativeError('NATIVE_JPEG', `sharp returned ${data.length} bytes, expected ${needed}`);
  }
  dst.set(data);
}

/** Fallback for decodeFull (core/native/turbo.ts): sharp's decode to packed RGB (much slower; accurate IDCT). */
export async function decodeFullSharp(src: Uint8Array): Promise<{ data: Uint8Array; width: number; height: number }> {
  requireBytes(src, 'src');
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(src, { failOn: 'none' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width > RESIZE_MAX_DIMENSION || info.height > RESIZE_MAX_DIMENSION) {
      throw new Error('image too large');
    }
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  } catch (error) {
    throw new NativeError('NATIVE_JPEG', `sharp could not decode the JPEG: ${String(error)}`, {
      cause: error,
    });
  }
}

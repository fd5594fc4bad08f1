import type SharpConstructor from 'sharp';
import type { RGBPixels } from '../fields/image-codec.js';
import { ImageReadError, MAX_INPUT_PIXELS } from './read-error.js';

let sharpLoaded: Promise<typeof SharpConstructor> | undefined;

/**
 * sharp, loaded on first use: loading libvips costs ~0.3 s of CPU per thread, and the
 * common source JPEG never needs it (transcodeSource, nativeJpegRGB), so encode workers
 * that only see such files start without it.
 */
export function getSharp(): Promise<typeof SharpConstructor> {
  sharpLoaded ??= import('sharp').then((m) => {
    // One libvips thread per call: parallelism comes from our worker pool, and libvips'
    // own threads would oversubscribe the cores.
    m.default.concurrency(1);
    m.default.cache(false);
    return m.default;
  });
  return sharpLoaded;
}

export async function sharpRGB(buf: Buffer, failOn: 'warning' | 'error'): Promise<RGBPixels> {
  const sharp = await getSharp();
  const { data, info } = await sharp(buf, { failOn, limitInputPixels: MAX_INPUT_PIXELS })
    .rotate() // EXIF orientation
    .removeAlpha()
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new ImageReadError(`decoded to ${info.channels} channels, expected 3`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

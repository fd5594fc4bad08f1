import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import sharp from 'sharp';
import { BetonEncodeError } from '../format/errors.js';
import { isRGBPixels, type ImageCodec, type ImageInput, type RGBPixels } from '../fields/image-codec.js';
import { decodeJpeg, encodeJpeg, resizeArea } from './jpeg.js';

// One libvips thread per call: parallelism comes from our worker pool, and libvips' own
// threads would oversubscribe the cores.
sharp.concurrency(1);
sharp.cache(false);

/**
 * Reads any image sharp can (JPEG, PNG, WebP, TIFF, GIF first frame, …) into 8-bit RGB.
 * EXIF orientation is applied, so pixels are what users see. Alpha is dropped, as PIL's
 * convert('RGB') does (torchvision's loader), so labels and pixels match PyTorch's.
 */
export async function loadRGB(input: ImageInput, baseDir?: string): Promise<RGBPixels> {
  if (isRGBPixels(input)) return input;
  let src: Buffer | string;
  let name: string;
  if (typeof input === 'string' || 'path' in input) {
    const p = typeof input === 'string' ? input : input.path;
    name = baseDir && !isAbsolute(p) ? join(baseDir, p) : p;
    src = name;
  } else {
    src = Buffer.from(input.file.buffer, input.file.byteOffset, input.file.byteLength);
    name = input.name ?? '<bytes>';
  }
  try {
    if (typeof src === 'string') src = await readFile(src);
    if (src.byteLength === 0) throw new Error('the file is empty (0 bytes)');
    const { data, info } = await sharp(src, { failOn: 'error', limitInputPixels: 2 ** 28 })
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels, expected 3`);
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'file not found' : err.code === 'EACCES' ? 'permission denied' : err.message;
    throw new BetonEncodeError('BAD_VALUE', `cannot read image ${name}: ${why}`, { source: name });
  }
}

let codec: ImageCodec | null = null;
export function nodeImageCodec(): ImageCodec {
  codec ??= { load: loadRGB, resizeArea, encodeJpeg, decodeJpeg };
  return codec;
}

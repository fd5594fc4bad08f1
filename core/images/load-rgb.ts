import { BetonEncodeError } from '../format/errors.js';
import { isRGBPixels, type ImageInput, type RGBPixels } from '../fields/image-codec.js';
import { decodeBmp } from './bmp.js';
import { explain } from './explain-failure.js';
import { sniff } from './format-sniff.js';
import { decodeJpegSource } from './jpeg-source.js';
import { decodePnm } from './pnm.js';
import { FIX_DATA, fsReason, ImageReadError, unreadable } from './read-error.js';
import { sharpRGB } from './sharp-decode.js';
import { readWhole, sourceOf } from './source-file.js';

async function decodeBuffer(buf: Buffer): Promise<RGBPixels> {
  if (buf.byteLength === 0) throw unreadable('the file is empty (0 bytes)', FIX_DATA);
  const format = sniff(buf);
  try {
    switch (format) {
      case 'jpeg':
        return await decodeJpegSource(buf);
      case 'bmp':
        return decodeBmp(buf);
      case 'pnm':
        return decodePnm(buf);
      default:
        return await sharpRGB(buf, 'error');
    }
  } catch (e) {
    throw await explain(e, buf, format);
  }
}

/**
 * Reads any image sharp can (JPEG, PNG, WebP, TIFF, GIF first frame, AVIF) or BMP/PPM/PGM
 * into 8-bit RGB. EXIF orientation is applied, so pixels are what users see. Alpha is
 * dropped, as PIL's convert('RGB') does (torchvision's loader): RGB values are kept, not
 * composited. 16-bit samples keep their high byte (v >> 8). CMYK/YCCK and ICC-tagged
 * images are converted to sRGB with their profile. Truncated or corrupt files fail with
 * a message naming the file, the problem and the fix. See docs/images.md.
 */
export async function loadRGB(input: ImageInput, baseDir?: string): Promise<RGBPixels> {
  if (isRGBPixels(input)) return input;
  const src = sourceOf(input, baseDir);
  try {
    const buf = src.bytes ? Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.byteLength) : readWhole(src.path!, src.confined);
    // The encoded size goes into the build report: without it the compression ratio has no sources to compare.
    return { ...(await decodeBuffer(buf)), sourceBytes: buf.byteLength };
  } catch (e) {
    const why = e instanceof ImageReadError ? e.message : fsReason(e);
    throw new BetonEncodeError('BAD_VALUE', `cannot read image ${src.name}: ${why}`, { source: src.name });
  }
}

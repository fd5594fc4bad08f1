import { closeSync } from 'node:fs';
import { isRGBPixels, type ImageInput } from '../fields/image-codec.js';
import { jpegDecodeRGB, jpegInfo } from '../native/jpeg-codec.js';
import { iccDescription } from './icc.js';
import { endsWithEoi, parseJpegHeader, type JpegHeader } from './jpeg-header.js';
import { openRegular, readRange, sourceOf } from './source-file.js';
import { refuseFromHeader } from './header-limits.js';

/** Why a JPEG header cannot be stored unchanged, or null when it can. */
export function passThroughBlocker(h: JpegHeader, maxResolution: number | null): string | null {
  if (h.sof !== 0xc0 && h.sof !== 0xc1 && h.sof !== 0xc2) return `SOF 0x${h.sof.toString(16)} (not baseline/progressive Huffman)`;
  if (h.precision !== 8) return `${h.precision}-bit samples`;
  if (h.components !== 1 && h.components !== 3) return `${h.components} components`;
  if (h.width < 1 || h.height < 1) return 'no size in the frame header';
  if (h.orientations.some((o) => o !== 1)) return 'EXIF orientation';
  if (h.icc && !/sRGB/i.test(iccDescription(h.icc) ?? '')) return 'a non-sRGB ICC profile';
  if (h.mpf) return 'a multi-picture (MPO) file';
  if (maxResolution && Math.max(h.width, h.height) > maxResolution) return 'needs a resize';
  return null;
}

/**
 * Bytes read first: the whole file for most dataset JPEGs, else enough for the header
 * (longer headers, with big EXIF thumbnails or ICC profiles, are parsed from the whole file).
 */
const HEAD_BYTES = 128 * 1024;

/**
 * The source file's bytes when they can be stored in the dataset unchanged (a JPEG
 * FFCV decodes to what loadRGB would give, needing no resize), else null; the caller
 * then decodes and re-encodes. Conditions: a file path or file bytes (not pixels);
 * a baseline/extended/progressive Huffman JPEG with 8-bit samples whose colour space
 * (as libjpeg decides it) is YCbCr or Grayscale; EXIF orientation 1 or none; no ICC
 * profile other than sRGB (loadRGB would convert the colours); not an MPO; max(w,h) <=
 * maxResolution (when set); the file ends with an EOI marker. Reads only the header
 * (and, when eligible, the file); never decodes pixels, never throws: any problem
 * gives null and the normal path reports it.
 *
 * Not detected: a file cut inside its scan and then re-terminated with an EOI marker.
 */
export async function probePassThrough(
  input: ImageInput,
  baseDir: string | undefined,
  maxResolution: number | null,
): Promise<{ bytes: Uint8Array; width: number; height: number } | null> {
  if (isRGBPixels(input)) return null;
  const src = sourceOf(input, baseDir);
  try {
    let bytes: Uint8Array;
    let header: JpegHeader | 'short' | null;
    if (src.bytes) {
      bytes = src.bytes;
      header = parseJpegHeader(bytes);
    } else {
      const { fd, size } = openRegular(src.path!, src.confined);
      try {
        const head = new Uint8Array(Math.min(size, HEAD_BYTES));
        readRange(fd, head, 0);
        header = parseJpegHeader(head);
        // Too large to read: not passed through; the decode path refuses it with the reason.
        if (refuseFromHeader(head, size)) return null;
        if (header === null || (header !== 'short' && passThroughBlocker(header, maxResolution) !== null)) return null;
        if (head.length === size) {
          bytes = head; // the whole file (most JPEGs in datasets)
        } else {
          const tail = new Uint8Array(2);
          readRange(fd, tail, size - 2);
          if (!endsWithEoi(tail)) return null;
          bytes = new Uint8Array(size);
          bytes.set(head, 0);
          readRange(fd, bytes.subarray(head.length), head.length);
        }
      } finally {
        closeSync(fd);
      }
      if (header === 'short') header = parseJpegHeader(bytes);
    }
    if (header === null || header === 'short' || passThroughBlocker(header, maxResolution) !== null) return null;
    if (!endsWithEoi(bytes)) return null;
    // libjpeg's own reading of the header (as FFCV's decoder will see it): colour space
    // from JFIF/Adobe markers and component ids, and a header it accepts at all.
    const info = jpegInfo(bytes);
    if (info.colorSpace !== 'YCbCr' && info.colorSpace !== 'Grayscale') return null;
    if (info.width !== header.width || info.height !== header.height) return null;
    // A scan cut short and re-terminated passes every cheap check; only decoding finds it.
    // A strict fast-DCT decode (~1 ms at 500x375) still costs far less than decode +
    // re-encode, and a stored sample must never decode to grey fill.
    jpegDecodeRGB(bytes, undefined, { fastDct: true, strict: true });
    return { bytes, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

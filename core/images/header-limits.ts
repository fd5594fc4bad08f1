import { sniff } from './format-sniff.js';
import { parseJpegHeader } from './jpeg-header.js';
import { FIX_SIZE, MAX_INPUT_PIXELS, unreadable, type ImageReadError } from './read-error.js';

/** Largest source image file read (1 GiB): far above any image of MAX_INPUT_PIXELS in a real format, and below Node's 2 GiB read limit. */
export const MAX_SOURCE_FILE_BYTES = 2 ** 30;
/** Bytes read first: the header of every format whose size we predict. */
export const HEADER_PROBE_BYTES = 1 << 16;

/** Width × height from an image header (PNG, JPEG, GIF, BMP), or null when the header does not say. */
export function headerDims(head: Uint8Array): { width: number; height: number } | null {
  const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
  switch (sniff(head)) {
    case 'png':
      return head.length >= 24 ? { width: v.getUint32(16), height: v.getUint32(20) } : null;
    case 'jpeg': {
      const h = parseJpegHeader(head);
      return h && h !== 'short' ? { width: h.width, height: h.height } : null;
    }
    case 'gif':
      return head.length >= 10 ? { width: v.getUint16(6, true), height: v.getUint16(8, true) } : null;
    case 'bmp':
      return head.length >= 26 ? { width: Math.abs(v.getInt32(18, true)), height: Math.abs(v.getInt32(22, true)) } : null;
    default:
      return null;
  }
}

/**
 * Why a source image file is refused before it is read whole, from its size and its first
 * bytes alone, or null: a file over MAX_SOURCE_FILE_BYTES, or a header announcing more
 * pixels than MAX_INPUT_PIXELS. Reading (and allocating) gigabytes to learn what the header
 * already says is what took 3-5 GB of memory per image before.
 */
export function refuseFromHeader(head: Uint8Array, size: number): ImageReadError | null {
  const dims = headerDims(head);
  if (dims && dims.width * dims.height > MAX_INPUT_PIXELS) {
    const mp = ((dims.width * dims.height) / 1e6).toFixed(0);
    return unreadable(
      `too large (${dims.width}x${dims.height} = ${mp} megapixels; the limit is ${(MAX_INPUT_PIXELS / 1e6).toFixed(0)} megapixels), as its header says`,
      FIX_SIZE,
    );
  }
  if (size > MAX_SOURCE_FILE_BYTES) {
    const fmt = sniff(head);
    const what = fmt === 'other' ? 'it starts with no known image signature' : `a ${fmt.toUpperCase()} file`;
    return unreadable(`the file is ${(size / 2 ** 30).toFixed(1)} GiB (${what}), over the 1 GiB a source image file may be`, FIX_SIZE);
  }
  return null;
}

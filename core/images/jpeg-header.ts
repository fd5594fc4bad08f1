import { ascii } from './bytes.js';
import { exifOrientation } from './exif.js';

/** What the markers before a JPEG's first scan say (no decoding). */
export interface JpegHeader {
  /** Start-of-frame marker (0xc0 baseline, 0xc1 extended, 0xc2 progressive, …). */
  sof: number;
  precision: number;
  width: number;
  height: number;
  components: number;
  /** EXIF orientation from the Exif APP1 segment(s): 1 when none; null when unparseable. */
  orientations: Array<number | null>;
  /** The embedded ICC profile (chunks joined), or null. */
  icc: Uint8Array | null;
  /** A Multi-Picture Format (MPO) index: more images follow the first. */
  mpf: boolean;
}

/**
 * Walks a JPEG's marker segments up to its first SOS. Returns 'short' when the bytes end
 * before that (read more), null when they are not a well-formed JPEG header.
 */
export function parseJpegHeader(b: Uint8Array): JpegHeader | 'short' | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frame: Pick<JpegHeader, 'sof' | 'precision' | 'width' | 'height' | 'components'> | null = null;
  const orientations: Array<number | null> = [];
  const iccChunks: Array<{ seq: number; data: Uint8Array }> = [];
  let mpf = false;
  let p = 2;
  for (;;) {
    if (p + 2 > b.length) return 'short';
    if (b[p] !== 0xff) return null;
    const m = b[p + 1]!;
    if (m === 0xff) {
      p++; // fill byte
      continue;
    }
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) {
      p += 2;
      continue;
    }
    if (m === 0xd8 || m === 0xd9) return null; // SOI/EOI before any scan
    if (p + 4 > b.length) return 'short';
    const len = v.getUint16(p + 2);
    if (len < 2) return null;
    if (m === 0xda) {
      if (!frame) return null;
      return { ...frame, orientations, icc: joinIcc(iccChunks), mpf };
    }
    const end = p + 2 + len;
    if (end > b.length) return 'short';
    const body = b.subarray(p + 4, end);
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      if (frame || body.length < 6) return null;
      frame = { sof: m, precision: body[0]!, height: (body[1]! << 8) | body[2]!, width: (body[3]! << 8) | body[4]!, components: body[5]! };
    } else if (m === 0xe1 && body.length >= 6 && ascii(body, 0, 6) === 'Exif\0\0') {
      orientations.push(exifOrientation(body.subarray(6)));
    } else if (m === 0xe2 && body.length >= 14 && ascii(body, 0, 12) === 'ICC_PROFILE\0') {
      iccChunks.push({ seq: body[12]!, data: body.subarray(14) });
    } else if (m === 0xe2 && body.length >= 4 && ascii(body, 0, 4) === 'MPF\0') {
      mpf = true;
    }
    p = end;
  }
}

function joinIcc(chunks: Array<{ seq: number; data: Uint8Array }>): Uint8Array | null {
  if (chunks.length === 0) return null;
  return Buffer.concat(chunks.sort((a, b) => a.seq - b.seq).map((c) => c.data));
}

/** JPEG's end-of-image marker: a file lacking only this is retried with it appended. */
export const EOI = Buffer.from([0xff, 0xd9]);
export const endsWithEoi = (b: Uint8Array): boolean => b.length >= 2 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;

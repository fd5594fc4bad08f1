import { createHash } from 'node:crypto';
import { BetonFormatError } from '../../format/errors.js';
import { decodeJpegInto } from '../../loader/image-decode.js';
import { cropResizeRGB } from '../../native/area-resize.js';
import type { Reader } from '../../reader/reader.js';

/** What one decode of a sample tells the check (kept small: plain data crosses from workers). */
export interface SampleFacts {
  id: number;
  /** Why the sample could not be read or decoded; the other facts are then absent. */
  error?: string;
  /** sha1 (hex, 20 chars) of the decoded pixels with their size, or of every field's stored bytes when there is no image field. */
  hash?: string;
  /** 64-bit perceptual (DCT) hash of the image: [high 32 bits, low 32 bits]. */
  phash?: [number, number];
  width?: number;
  height?: number;
  /** Standard deviation of the grey levels of a 32x32 thumbnail. */
  stdDev?: number;
  label?: number | null;
}

const THUMB = 32;

/**
 * Reads and decodes sample `id` once, with the loader's decoders (the strict JPEG decode
 * the loader uses, so what fails here fails in training), and derives everything the
 * check needs from that one decode: the pixel hash (exact duplicates), a 32x32 grey
 * thumbnail's 64-bit DCT hash (near-duplicates), the size and the grey spread (outliers).
 */
export function sampleFacts(reader: Reader, id: number, imageField: number | null, labelField: number | null): SampleFacts {
  let label: number | null = null;
  try {
    label = labelField === null ? null : Number(reader.fieldMetadata(id, labelField).getBigInt64(0, true));
    if (imageField === null) {
      const h = createHash('sha1');
      reader.fields.forEach((_, f) => {
        const m = reader.fieldMetadata(id, f);
        h.update(new Uint8Array(m.buffer, m.byteOffset, m.byteLength));
        const ref = reader.heapRef(id, f);
        if (ref) h.update(reader.readBytes(ref));
      });
      // Decoding every field finds what the loader would refuse (bad JSON, bad pointers).
      reader.read(id);
      return { id, hash: h.digest('hex').slice(0, 20), label };
    }
    const meta = reader.fieldMetadata(id, imageField);
    const field = reader.fields[imageField]!.field;
    const { width, height } = field.imageSize!(meta);
    const ref = reader.heapRef(id, imageField);
    if (!ref) throw new BetonFormatError('CORRUPT_DATA', `sample ${id}: the image has no data`, { sample: id });
    const stored = reader.readBytes(ref);
    let px: Uint8Array;
    if (field.imageMode!(meta) === 'raw') {
      if (stored.byteLength !== width * height * 3)
        throw new BetonFormatError(
          'CORRUPT_DATA',
          `sample ${id}: the raw image holds ${stored.byteLength} bytes, not ${width}x${height}x3`,
          { sample: id },
        );
      px = stored;
    } else {
      px = new Uint8Array(width * height * 3);
      decodeJpegInto(stored, px, width, height);
    }
    const hash = createHash('sha1').update(`${width}x${height}:`).update(px).digest('hex').slice(0, 20);
    const thumb = cropResizeRGB(px, width, height, { x: 0, y: 0, w: width, h: height }, THUMB, THUMB);
    return { id, hash, phash: perceptualHash(thumb), width, height, stdDev: greyStdDev(thumb), label };
  } catch (e) {
    return { id, error: oneLine((e as Error).message), label };
  }
}

const grey = (rgb: Uint8Array, i: number): number => 0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;

/** DCT-II basis for 32 points, first 8 frequencies: COS[u][x]. */
const COS = Array.from({ length: 8 }, (_, u) =>
  Float64Array.from({ length: THUMB }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * THUMB))),
);

/**
 * pHash: the 8x8 lowest frequencies of the 2-D DCT of the 32x32 grey thumbnail; bit = the
 * coefficient is above the median of the 63 non-DC ones. Unlike a difference hash it does
 * not hang on the sign of tiny differences between flat neighbouring cells, which a
 * re-encode flips at will, so a resized, re-compressed copy stays within a few bits.
 */
export function perceptualHash(rgb32: Uint8Array): [number, number] {
  const g = new Float64Array(THUMB * THUMB);
  for (let i = 0; i < g.length; i++) g[i] = grey(rgb32, i);
  // Rows first (32 rows × 8 frequencies), then columns (8 × 8).
  const rows = new Float64Array(THUMB * 8);
  for (let y = 0; y < THUMB; y++)
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let x = 0; x < THUMB; x++) s += g[y * THUMB + x]! * COS[u]![x]!;
      rows[y * 8 + u] = s;
    }
  const coef = new Float64Array(64);
  for (let v = 0; v < 8; v++)
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let y = 0; y < THUMB; y++) s += rows[y * 8 + u]! * COS[v]![y]!;
      coef[v * 8 + u] = s;
    }
  const median = [...coef.subarray(1)].sort((a, b) => a - b)[31]!;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 64; k++) {
    const bit = coef[k]! > median ? 1 : 0;
    if (k < 32) hi = ((hi << 1) | bit) >>> 0;
    else lo = ((lo << 1) | bit) >>> 0;
  }
  return [hi, lo];
}

function greyStdDev(rgb: Uint8Array): number {
  const n = rgb.byteLength / 3;
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const g = grey(rgb, i);
    s += g;
    s2 += g * g;
  }
  const mean = s / n;
  return Math.sqrt(Math.max(0, s2 / n - mean * mean));
}

/** A message on one line, without the file path (the report names the file once). */
function oneLine(m: string): string {
  return m.replace(/\s+/g, ' ').trim();
}

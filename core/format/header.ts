import { FORMAT_VERSION, HEADER_SIZE } from './constants.js';
import { BetonFormatError } from './errors.js';
import { readU64, writeU64 } from './u64.js';

export interface Header {
  version: number;
  numFields: number;
  pageSize: number;
  numSamples: number;
  allocTablePtr: number;
}

export function encodeHeader(h: Header): Uint8Array {
  const out = new Uint8Array(HEADER_SIZE);
  const v = new DataView(out.buffer);
  v.setUint16(0, h.version, true);
  v.setUint16(2, h.numFields, true);
  v.setUint32(4, h.pageSize, true);
  writeU64(v, 8, h.numSamples);
  writeU64(v, 16, h.allocTablePtr);
  return out;
}

/** Parses the 24-byte header; checks only what FFCV checks plus page-size sanity. */
export function decodeHeader(bytes: Uint8Array, file = '<buffer>'): Header {
  if (bytes.byteLength < HEADER_SIZE) {
    throw new BetonFormatError(
      'TRUNCATED',
      `${file}: ${bytes.byteLength} bytes is shorter than the 24-byte .beton header; the file is truncated or not a .beton file`,
      { file, offset: 0 },
    );
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, HEADER_SIZE);
  const version = v.getUint16(0, true);
  if (version !== FORMAT_VERSION) {
    // A file of another kind says what it is ("format version 25705" was a CSV's "id").
    const other = otherKind(bytes);
    if (other)
      throw new BetonFormatError(
        'BAD_VERSION',
        `${file} is not a .beton file: ${other}`,
        { file, offset: 0 },
        'Open a .beton file, or build one from this source first (Sources, or `beton build`).',
      );
    throw new BetonFormatError(
      'BAD_VERSION',
      `${file}: format version ${version}, expected ${FORMAT_VERSION} (FFCV 1.x). This is not a .beton file, or one from an unsupported FFCV version`,
      { file, offset: 0 },
    );
  }
  const pageSize = v.getUint32(4, true);
  return {
    version,
    numFields: v.getUint16(2, true),
    pageSize,
    numSamples: readU64(v, 8, file),
    allocTablePtr: readU64(v, 16, file),
  };
}

/** What a file that is not a .beton looks like, from its first bytes (null: nothing recognisable). */
function otherKind(b: Uint8Array): string | null {
  const starts: Array<[number[], string]> = [
    [[0x50, 0x41, 0x52, 0x31], 'it is a Parquet table'],
    [[0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59], 'it is a NumPy array (.npy)'],
    [[0x50, 0x4b, 0x03, 0x04], 'it is a ZIP archive (an .npz?)'],
    [[0xff, 0xd8, 0xff], 'it is a JPEG image'],
    [[0x89, 0x50, 0x4e, 0x47], 'it is a PNG image'],
    [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'it is an SQLite database'],
  ];
  for (const [magic, what] of starts) if (magic.every((c, i) => b[i] === c)) return what;
  const head = b.subarray(0, Math.min(b.length, 64));
  if (head.length && head.every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127))) {
    // Printable ASCII only, so each byte is its character.
    const first = new TextDecoder().decode(head).split(/\r?\n/)[0]!;
    const line = first.slice(0, 40);
    return `it holds text ("${line}${line.length < first.length ? '…' : ''}"), a table such as a CSV?`;
  }
  return null;
}

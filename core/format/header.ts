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

import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from './constants.js';

/** Byte regions of a .beton file, derived from the header and the record size. */
export interface Regions {
  fieldTable: { offset: number; size: number };
  metadata: { offset: number; size: number };
  /** First byte after the metadata table (M1). */
  metadataEnd: number;
  /** Where data pages start (D0): M1 rounded up to a page boundary. */
  dataStart: number;
}

export function regions(numFields: number, numSamples: number, recordSize: number, pageSize: number): Regions {
  const m0 = HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * numFields;
  const m1 = m0 + numSamples * recordSize;
  return {
    fieldTable: { offset: HEADER_SIZE, size: FIELD_DESCRIPTOR_SIZE * numFields },
    metadata: { offset: m0, size: numSamples * recordSize },
    metadataEnd: m1,
    dataStart: Math.ceil(m1 / pageSize) * pageSize,
  };
}

export const isPowerOfTwo = (n: number): boolean => Number.isInteger(n) && n > 0 && Number.isInteger(Math.log2(n));

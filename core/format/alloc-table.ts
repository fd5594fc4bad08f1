import { ALLOC_ENTRY_SIZE } from './constants.js';
import { readU64, writeU64 } from './u64.js';

/** One allocation-table entry: the sample that owns a heap object, where it is, how long. */
export interface Allocation {
  sampleId: number;
  ptr: number;
  size: number;
}

export function encodeAllocation(a: Allocation, out: Uint8Array, offset: number): void {
  const v = new DataView(out.buffer, out.byteOffset + offset, ALLOC_ENTRY_SIZE);
  writeU64(v, 0, a.sampleId);
  writeU64(v, 8, a.ptr);
  writeU64(v, 16, a.size);
}

export function decodeAllocation(bytes: Uint8Array, offset: number, file?: string): Allocation {
  const v = new DataView(bytes.buffer, bytes.byteOffset + offset, ALLOC_ENTRY_SIZE);
  return { sampleId: readU64(v, 0, file), ptr: readU64(v, 8, file), size: readU64(v, 16, file) };
}

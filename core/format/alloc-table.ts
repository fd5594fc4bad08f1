import { ALLOC_ENTRY_SIZE } from './constants.js';
import { writeU64 } from './u64.js';

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

import { mmapFile } from '../native/index.js';
import type { MemoryPlan } from './protocol.js';

/** How a worker gets a heap object's bytes: a zero-copy view either way. */
export interface HeapAccess {
  bytes(ptr: number, size: number): Uint8Array;
}

/**
 * OS cache: the file memory-mapped (each worker maps it; the OS shares the pages).
 * Process cache: the page pool in shared memory, filled by the loader's page readers
 * before a batch is dispatched.
 */
export function heapAccess(memory: MemoryPlan, path: string, pageSize: number): HeapAccess {
  if (memory.kind === 'os') {
    const file = new Uint8Array(mmapFile(path));
    return { bytes: (ptr, size) => file.subarray(ptr, ptr + size) };
  }
  const pool = new Uint8Array(memory.pool);
  const pageToSlot = new Int32Array(memory.pageToSlot);
  return {
    bytes: (ptr, size) => {
      const page = Math.floor(ptr / pageSize);
      const slot = Atomics.load(pageToSlot, page);
      if (slot < 0) throw new Error(`page ${page} is not resident in the process cache (scheduler bug)`);
      const off = slot * pageSize + (ptr - page * pageSize);
      return pool.subarray(off, off + size);
    },
  };
}

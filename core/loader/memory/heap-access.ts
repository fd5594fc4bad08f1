import type { MemoryPlan } from '../protocol.js';
import type { HeapAccess } from './memory-manager.js';
import { osCacheHeap } from './os-cache.js';
import { processCacheHeap } from './process-cache.js';

export type { HeapAccess };

/** The worker's side of the loader's memory manager: its strategy's view of the file's bytes. */
export function heapAccess(memory: MemoryPlan, path: string, pageSize: number): HeapAccess {
  return memory.kind === 'os' ? osCacheHeap(path, pageSize) : processCacheHeap(memory, pageSize);
}

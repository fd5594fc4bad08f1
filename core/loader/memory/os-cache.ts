import { mmapFile } from '../../native/index.js';
import type { HeapAccess, MemoryManager, PageHold } from './memory-manager.js';

const NOTHING_HELD: PageHold = { release: () => {} };

/**
 * osCache on (the default): each worker memory-maps the file and the OS pages it in on
 * demand and keeps it cached, shared by every process reading it. The loader holds
 * nothing and reads nothing itself.
 */
export class OsCache implements MemoryManager {
  readonly plan = { kind: 'os' } as const;
  readonly pagesRead = 0;

  hold(): PageHold {
    return NOTHING_HELD;
  }

  async close(): Promise<void> {}
}

/** The worker's side: zero-copy views into its own map of the file. */
export function osCacheHeap(path: string): HeapAccess {
  const file = new Uint8Array(mmapFile(path));
  return { bytes: (ptr, size) => file.subarray(ptr, ptr + size) };
}

import { statSync } from 'node:fs';
import { mmapFile } from '../../native/mmap.js';
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

/**
 * Bytes per mapped window: 1 GiB, or one page where pages are larger (2^31 at most). One
 * ArrayBuffer holds at most 4 GiB, so a whole-file map cannot serve a large file; windows
 * are a whole number of pages and a heap object never crosses a page (the reader checks),
 * so an object never crosses a window either.
 */
export function osCacheWindowBytes(pageSize: number): number {
  return Math.max(pageSize, 2 ** 30);
}

/**
 * The worker's side: zero-copy views into its own map of the file. A file of one window
 * or less is mapped whole (the common case, one subarray per object); a larger one in
 * windows mapped on first use, addressed with plain numbers (exact to 2^53: offsets past
 * 2^32 and 2^33 included).
 */
export function osCacheHeap(path: string, pageSize: number): HeapAccess {
  const win = osCacheWindowBytes(pageSize);
  const size = statSync(path).size;
  if (size <= win) {
    const file = new Uint8Array(mmapFile(path));
    return { bytes: (ptr, n) => file.subarray(ptr, ptr + n) };
  }
  const windows: Array<Uint8Array | undefined> = [];
  return {
    bytes: (ptr, n) => {
      const w = Math.floor(ptr / win);
      const start = w * win;
      const view = (windows[w] ??= new Uint8Array(mmapFile(path, start, Math.min(win, size - start))));
      return view.subarray(ptr - start, ptr - start + n);
    },
  };
}

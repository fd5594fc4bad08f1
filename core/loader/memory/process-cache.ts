import { open } from 'node:fs/promises';
import { totalmem } from 'node:os';
import type { Reader } from '../../reader/reader.js';
import type { MemoryPlan } from '../protocol.js';
import { LoaderError } from '../errors.js';
import { fileFetch } from './file-fetch.js';
import type { HeapAccess } from './memory-manager.js';
import { PageCache } from './page-cache.js';
import { pagesOfFields } from './sample-pages.js';

/** Most pages the shared page → slot table indexes (1 GiB of table; a 500 GB file of 8 MiB pages has 60k). */
const MAX_TABLE_PAGES = 2 ** 28;

/** Default size of the page pool: 1 GiB. */
const DEFAULT_BYTES = 2 ** 30;

export interface ProcessCacheOptions {
  /** The fields the loader's outputs read: only their pages are loaded. */
  fields: readonly number[];
  batchSize: number;
  /** Size of the page pool; at least one batch's pages whatever is asked (default 1 GiB). */
  bytes?: number;
}

/**
 * osCache off: the loader's own bounded pool of pages in shared memory (page-cache.ts),
 * filled by positional reads of the file (file-fetch.ts). Before a batch is dispatched its
 * pages are read in and pinned; workers find them through the shared page → slot table.
 * Memory is the pool, whatever the file size.
 */
export class ProcessCache extends PageCache {
  static async open(path: string, reader: Reader, opts: ProcessCacheOptions): Promise<ProcessCache> {
    const pageSize = reader.pageSize;
    const numPages = Math.ceil(reader.header.allocTablePtr / pageSize);
    if (numPages > MAX_TABLE_PAGES) {
      // The shared page → slot table has an entry per page of the file (4 bytes each).
      throw new LoaderError(
        'OUT_OF_MEMORY',
        `${path}: the process cache (osCache: false) indexes every page, and this file has ${numPages} pages of ${gib(pageSize)} (more than ${MAX_TABLE_PAGES}); use the OS cache (osCache: true, the default) or rebuild the file with larger pages`,
      );
    }
    // A batch must fit: every sample may have each read field on its own page.
    const minSlots = Math.min(numPages, opts.batchSize * Math.max(1, opts.fields.length) + 1);
    const want = Math.ceil((opts.bytes ?? DEFAULT_BYTES) / pageSize);
    const slots = Math.max(1, Math.min(numPages, Math.max(minSlots, want)));
    const used = usedBytesPerPage(reader, numPages);
    // The pool is reserved lazily; what it will touch is the slots × the fullest page. Past
    // the machine's memory, say so now rather than be killed later.
    let fullest = 1;
    for (const u of used) if (u > fullest) fullest = u;
    const touched = slots * Math.min(pageSize, fullest);
    if (touched > totalmem()) {
      throw poolTooLarge(
        path,
        pageSize,
        slots,
        Math.max(1, minSlots),
        opts.batchSize,
        `more than this machine's memory (${gib(totalmem())}); it would touch ${gib(touched)}`,
      );
    }
    const fh = await open(path, 'r');
    try {
      return new ProcessCache({
        pageSize,
        numPages,
        slots,
        fetch: fileFetch(fh, pageSize, used),
        pagesOf: pagesOfFields(reader, opts.fields),
        close: () => fh.close(),
      });
    } catch (e) {
      await fh.close();
      if (!(e instanceof RangeError)) throw e;
      throw poolTooLarge(path, pageSize, slots, Math.max(1, minSlots), opts.batchSize, e.message, e);
    }
  }
}

/** Per page, the end of its last object relative to the page's start (0: no object). */
function usedBytesPerPage(reader: Reader, numPages: number): Uint32Array {
  // u32: a page is at most 2^31 bytes.
  const used = new Uint32Array(Math.max(1, numPages));
  const { ptrs, sizes } = reader.allocations;
  const ps = reader.pageSize;
  for (let k = 0; k < ptrs.length; k++) {
    const size = sizes[k]!;
    if (size === 0) continue;
    const page = Math.floor(ptrs[k]! / ps);
    const end = ptrs[k]! + size - page * ps;
    if (end > used[page]!) used[page] = end;
  }
  return used;
}

/** Bytes for a message, in the unit that keeps a figure above 1 (never "0.0 GiB"). */
const gib = (n: number): string => {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${u === 0 ? n : n.toFixed(1)} ${units[u]}`;
};

/** The pool could not be allocated: what it needed, for one batch at least, and what to do. */
function poolTooLarge(
  path: string,
  pageSize: number,
  slots: number,
  minSlots: number,
  batchSize: number,
  why: string,
  cause?: unknown,
): LoaderError {
  return new LoaderError(
    'OUT_OF_MEMORY',
    `${path}: the process cache (osCache: false) cannot hold its page pool of ${slots} pages of ${gib(pageSize)} (${gib(slots * pageSize)}; ` +
      `one batch of ${batchSize} may need ${minSlots} pages, ${gib(minSlots * pageSize)}): ${why}. ` +
      'Use the OS cache (osCache: true, the default), a smaller batch or processCacheBytes, or rebuild the file with smaller pages',
    {},
    cause,
  );
}

/** Slot views are made per slot: a pool above 4 GiB has no single Uint8Array view (Node's limit). */
const WHOLE_VIEW_MAX = 2 ** 31;

/** The worker's side: views into the shared pool, at the slot the table names. */
export function processCacheHeap(plan: Extract<MemoryPlan, { kind: 'process' }>, pageSize: number): HeapAccess {
  const pageToSlot = new Int32Array(plan.pageToSlot);
  const slotOf = (page: number): number => {
    const slot = Atomics.load(pageToSlot, page);
    if (slot < 0) throw new Error(`page ${page} is not resident in the process cache (scheduler bug)`);
    return slot;
  };
  if (plan.pool.byteLength <= WHOLE_VIEW_MAX) {
    const pool = new Uint8Array(plan.pool);
    return {
      bytes: (ptr, size) => {
        const page = Math.floor(ptr / pageSize);
        const off = slotOf(page) * pageSize + (ptr - page * pageSize);
        return pool.subarray(off, off + size);
      },
    };
  }
  const views: Array<Uint8Array | undefined> = [];
  return {
    bytes: (ptr, size) => {
      const page = Math.floor(ptr / pageSize);
      const slot = slotOf(page);
      const view = (views[slot] ??= new Uint8Array(plan.pool, slot * pageSize, pageSize));
      const off = ptr - page * pageSize;
      return view.subarray(off, off + size);
    },
  };
}

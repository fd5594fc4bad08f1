import type { MemoryPlan } from '../protocol.js';
import type { MemoryManager, PageHold } from './memory-manager.js';

/**
 * Where a page cache's pages come from: positional reads of a local file (file-fetch.ts) or
 * ranged GETs of a remote one (remote-fetch.ts). The cache owns slots, pins and eviction;
 * the fetch only fills the slot views it is given.
 */
export interface PageFetch {
  /** Most consecutive missing pages one fetch takes (1: a page at a time). */
  readonly maxRun: number;
  /** Bytes of `page` worth fetching (objects end there, or the file does); the rest of its slot is never read. */
  pageBytes(page: number): number;
  /**
   * Fills `views` with the pages `first`, `first + 1`, … (one view per page, each
   * pageBytes long); resolves to how many of them came from the source (a profiler figure:
   * pages served by a local disk cache do not count).
   */
  fetch(first: number, views: readonly Uint8Array[]): Promise<number>;
}

export interface PageCacheOptions {
  pageSize: number;
  numPages: number;
  slots: number;
  fetch: PageFetch;
  /** The pages holding a sample's objects of the fields the loader reads (sample-pages.ts). */
  pagesOf: (sampleId: number) => number[];
  /** Releases what the fetch holds (the file handle). */
  close?: () => Promise<void>;
}

/**
 * A bounded pool of page slots in shared memory, filled by a PageFetch before the batches
 * that need them are dispatched (osCache off: process-cache.ts; a remote file:
 * remote-cache.ts). Workers see it through the shared page → slot table (plan kind
 * 'process'), whatever the source. Pages in use by a batch in flight are pinned; unpinned
 * pages stay cached until their slot is needed (least recently used first). Missing pages
 * next to each other are fetched together, up to the fetch's maxRun. Memory is the pool,
 * whatever the file size.
 */
export class PageCache implements MemoryManager {
  readonly pool: SharedArrayBuffer;
  readonly pageToSlot: SharedArrayBuffer;
  readonly pageSize: number;
  readonly slots: number;
  private readonly map: Int32Array;
  private readonly slotPage: Int32Array;
  private readonly free: number[] = [];
  private readonly pins = new Map<number, number>();
  /** Unpinned resident pages, least recently used first. */
  private readonly lru = new Set<number>();
  private readonly loading = new Map<number, Promise<void>>();
  private waiters: Array<() => void> = [];
  private readonly source: PageFetch;
  private readonly pagesOf: (sampleId: number) => number[];
  private readonly onClose: (() => Promise<void>) | undefined;
  /** Pages read from the source (a profiler figure). */
  pagesRead = 0;

  constructor(opts: PageCacheOptions) {
    this.pageSize = opts.pageSize;
    this.slots = opts.slots;
    this.source = opts.fetch;
    this.pagesOf = opts.pagesOf;
    this.onClose = opts.close;
    this.pool = new SharedArrayBuffer(opts.slots * opts.pageSize);
    this.pageToSlot = new SharedArrayBuffer(Math.max(1, opts.numPages) * 4);
    this.map = new Int32Array(this.pageToSlot).fill(-1);
    this.slotPage = new Int32Array(opts.slots).fill(-1);
    for (let s = opts.slots - 1; s >= 0; s--) this.free.push(s);
  }

  get plan(): MemoryPlan {
    return { kind: 'process', pool: this.pool, pageToSlot: this.pageToSlot };
  }

  /** Pins the pages of these samples and resolves once all are resident. */
  async hold(sampleIds: Uint32Array): Promise<PageHold> {
    const set = new Set<number>();
    for (const id of sampleIds) for (const p of this.pagesOf(id)) set.add(p);
    const pages = [...set].sort((a, b) => a - b);
    for (const p of pages) {
      this.pins.set(p, (this.pins.get(p) ?? 0) + 1);
      this.lru.delete(p);
    }
    let held = true;
    const hold = {
      release: () => {
        if (held) this.release(pages);
        held = false;
      },
    };
    try {
      await this.ensure(pages);
    } catch (e) {
      // A failed fetch leaves nothing pinned: the next batch may reuse the slots.
      hold.release();
      throw e;
    }
    return hold;
  }

  close(): Promise<void> {
    return this.onClose ? this.onClose() : Promise.resolve();
  }

  private release(pages: readonly number[]): void {
    for (const p of pages) {
      const n = (this.pins.get(p) ?? 1) - 1;
      if (n > 0) this.pins.set(p, n);
      else {
        this.pins.delete(p);
        if (Atomics.load(this.map, p) >= 0) this.lru.add(p);
      }
    }
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Loads the missing ones of `pages` (sorted), consecutive missing pages in one fetch. */
  private async ensure(pages: readonly number[]): Promise<void> {
    const waits: Array<Promise<void>> = [];
    let run: number[] = [];
    const flush = (): void => {
      if (run.length === 0) return;
      const r = run;
      run = [];
      const p = this.loadRun(r);
      for (const page of r) this.loading.set(page, p);
      const done = (): void => r.forEach((page) => this.loading.delete(page));
      void p.then(done, done);
      waits.push(p);
    };
    for (const page of pages) {
      if (Atomics.load(this.map, page) >= 0) continue;
      const pending = this.loading.get(page);
      if (pending) {
        waits.push(pending);
        continue;
      }
      if (run.length > 0 && (run[run.length - 1] !== page - 1 || run.length >= this.source.maxRun)) flush();
      run.push(page);
    }
    flush();
    await Promise.all(waits);
  }

  private async loadRun(run: readonly number[]): Promise<void> {
    const slots: number[] = [];
    const ps = this.pageSize;
    try {
      for (let i = 0; i < run.length; i++) slots.push(await this.slot());
      const views = run.map((p, i) => new Uint8Array(this.pool, slots[i]! * ps, Math.min(ps, this.source.pageBytes(p))));
      // Not `pagesRead += await …`: that reads the count before the await and loses concurrent fetches.
      const read = await this.source.fetch(run[0]!, views);
      this.pagesRead += read;
    } catch (e) {
      for (const s of slots) this.free.push(s);
      this.wake();
      throw e;
    }
    run.forEach((p, i) => {
      this.slotPage[slots[i]!] = p;
      Atomics.store(this.map, p, slots[i]!);
    });
  }

  private async slot(): Promise<number> {
    for (;;) {
      const s = this.takeSlot();
      if (s >= 0) return s;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  private takeSlot(): number {
    const s = this.free.pop();
    if (s !== undefined) return s;
    for (const victim of this.lru) {
      this.lru.delete(victim);
      const slot = Atomics.load(this.map, victim);
      Atomics.store(this.map, victim, -1);
      this.slotPage[slot] = -1;
      return slot;
    }
    return -1;
  }
}

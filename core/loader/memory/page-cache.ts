import type { FileHandle } from 'node:fs/promises';

/**
 * The process cache (os_cache off): a bounded pool of page slots in shared memory,
 * filled by positional reads (libuv's thread pool = the page reader threads) before the
 * batches that need them are dispatched. Pages in use by a batch in flight are pinned;
 * unpinned pages stay cached until their slot is needed (least recently used first).
 * Memory is the pool, whatever the file size.
 */
export class PageCache {
  readonly pool: SharedArrayBuffer;
  readonly pageToSlot: SharedArrayBuffer;
  private readonly map: Int32Array;
  private readonly slotPage: Int32Array;
  private readonly free: number[] = [];
  private readonly pins = new Map<number, number>();
  /** Unpinned resident pages, least recently used first. */
  private readonly lru = new Set<number>();
  private readonly loading = new Map<number, Promise<void>>();
  private waiters: Array<() => void> = [];
  /** Pages read from disk (a profiler figure). */
  pagesRead = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly pageSize: number,
    numPages: number,
    readonly slots: number,
    /**
     * Bytes of each page that hold objects (from the allocation table): only those are read,
     * so a half-empty page of 2^31 bytes costs its objects, not 2 GiB. Absent: whole pages.
     */
    private readonly usedBytes?: Uint32Array,
  ) {
    this.pool = new SharedArrayBuffer(slots * pageSize);
    this.pageToSlot = new SharedArrayBuffer(Math.max(1, numPages) * 4);
    this.map = new Int32Array(this.pageToSlot).fill(-1);
    this.slotPage = new Int32Array(slots).fill(-1);
    for (let s = slots - 1; s >= 0; s--) this.free.push(s);
  }

  /** Pins `pages` and resolves once all are resident. */
  async acquire(pages: readonly number[]): Promise<void> {
    for (const p of pages) {
      this.pins.set(p, (this.pins.get(p) ?? 0) + 1);
      this.lru.delete(p);
    }
    await Promise.all(pages.map((p) => this.ensure(p)));
  }

  release(pages: readonly number[]): void {
    for (const p of pages) {
      const n = (this.pins.get(p) ?? 1) - 1;
      if (n > 0) this.pins.set(p, n);
      else {
        this.pins.delete(p);
        if (Atomics.load(this.map, p) >= 0) this.lru.add(p);
      }
    }
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private ensure(page: number): Promise<void> {
    if (Atomics.load(this.map, page) >= 0) return Promise.resolve();
    let p = this.loading.get(page);
    if (!p) {
      p = this.load(page).finally(() => this.loading.delete(page));
      this.loading.set(page, p);
    }
    return p;
  }

  private async load(page: number): Promise<void> {
    let slot = this.takeSlot();
    while (slot < 0) {
      await new Promise<void>((r) => this.waiters.push(r));
      slot = this.takeSlot();
    }
    try {
      const n = Math.min(this.pageSize, this.usedBytes?.[page] ?? this.pageSize);
      await readPage(this.fh, new Uint8Array(this.pool, slot * this.pageSize, n), page * this.pageSize);
    } catch (e) {
      this.free.push(slot);
      throw e;
    }
    this.pagesRead++;
    this.slotPage[slot] = page;
    Atomics.store(this.map, page, slot);
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

/**
 * Largest length one positional read asks for: fs.read refuses 2^31 bytes and more (a page
 * may be 2^31), and Linux returns at most ~2 GiB per call anyway.
 */
export const READ_CHUNK_BYTES = 2 ** 30;

/** Reads `into.length` bytes from `position` (a plain number, exact to 2^53) in chunks; a page cut short by the end of the file stays zero past it. */
export async function readPage(fh: FileHandle, into: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < into.length;) {
    const { bytesRead } = await fh.read(into, done, Math.min(READ_CHUNK_BYTES, into.length - done), position + done);
    if (bytesRead === 0) return;
    done += bytesRead;
  }
}

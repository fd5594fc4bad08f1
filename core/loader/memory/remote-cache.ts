import { DiskCache } from '../../remote/disk-cache.js';
import type { RangeClient } from '../../remote/range-client.js';
import type { RemoteFile } from '../../remote/remote-file.js';
import type { Reader } from '../../reader/reader.js';
import type { MemoryPlan } from '../protocol.js';
import type { MemoryManager, PageHold } from './memory-manager.js';
import { pagesOfFields } from './sample-pages.js';

/** Default page pool for a remote file: 512 MiB (at least one batch's pages). */
const DEFAULT_POOL_BYTES = 2 ** 29;
/** Ranged GETs in flight at once. */
const DEFAULT_CONCURRENCY = 8;
/** Consecutive missing pages fetched by one GET, at most. */
const MAX_RUN_PAGES = 4;

export interface RemoteCacheOptions {
  fields: readonly number[];
  batchSize: number;
  /** Size of the in-memory page pool. */
  poolBytes?: number;
  /** A local folder caching pages across epochs and processes (disk-cache.ts), and its byte limit. */
  cacheDir?: string;
  cacheBytes?: number;
  concurrency?: number;
}

/**
 * The loader's memory for a remote file (s3://, https://): a bounded pool of pages in
 * shared memory, filled by ranged GETs (whole pages, consecutive ones in one request,
 * several requests in flight) before a batch is dispatched, in the loader's batch order
 * (batchesAhead batches ahead). Workers see it exactly as the process cache
 * (plan kind 'process': the shared page → slot table), so they need no network. A rank
 * of a distributed loader fetches only the pages of its own samples. Pages pinned by a
 * batch in flight stay; the rest are reused least recently used first.
 */
export class RemoteCache implements MemoryManager {
  readonly pool: SharedArrayBuffer;
  readonly pageToSlot: SharedArrayBuffer;
  private readonly map: Int32Array;
  private readonly slotPage: Int32Array;
  private readonly free: number[] = [];
  private readonly pins = new Map<number, number>();
  private readonly lru = new Set<number>();
  private readonly loading = new Map<number, Promise<void>>();
  private waiters: Array<() => void> = [];
  private inFlight = 0;
  private queue: Array<() => void> = [];
  private readonly pagesOf: (sampleId: number) => number[];
  private readonly disk: DiskCache | null;
  private readonly client: RangeClient;
  private readonly pageSize: number;
  private readonly dataEnd: number;
  private readonly concurrency: number;
  pagesRead = 0;

  constructor(reader: Reader, remote: RemoteFile, opts: RemoteCacheOptions) {
    const ps = reader.pageSize;
    this.pageSize = ps;
    this.dataEnd = reader.header.allocTablePtr;
    const numPages = Math.ceil(this.dataEnd / ps);
    // A batch must fit: each sample's heap fields may each be on a page of their own
    // (metadata-only fields, ints and floats, have none).
    const heapFields = opts.fields.filter((f) => reader.fields[f]?.field.pointerOffset !== null).length;
    const minSlots = Math.min(numPages, opts.batchSize * Math.max(1, heapFields) + 1);
    const want = Math.ceil((opts.poolBytes ?? DEFAULT_POOL_BYTES) / ps);
    const slots = Math.max(1, Math.min(numPages, Math.max(minSlots, want)));
    this.pool = new SharedArrayBuffer(slots * ps);
    this.pageToSlot = new SharedArrayBuffer(Math.max(1, numPages) * 4);
    this.map = new Int32Array(this.pageToSlot).fill(-1);
    this.slotPage = new Int32Array(slots).fill(-1);
    for (let s = slots - 1; s >= 0; s--) this.free.push(s);
    this.pagesOf = pagesOfFields(reader, opts.fields);
    this.client = remote.client;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    const snap = remote.snapshot;
    // The environment gives every command (profile, the app) a disk cache without a flag of its own.
    const cacheDir = opts.cacheDir ?? process.env['BETON_REMOTE_CACHE_DIR'];
    const envBytes = Number(process.env['BETON_REMOTE_CACHE_BYTES']);
    const cacheBytes = opts.cacheBytes ?? (envBytes > 0 ? envBytes : undefined);
    this.disk = cacheDir ? new DiskCache(cacheDir, snap.url, snap.etag, ps, cacheBytes) : null;
    this.etag = snap.etag;
  }

  private readonly etag: string | null;

  get plan(): MemoryPlan {
    return { kind: 'process', pool: this.pool, pageToSlot: this.pageToSlot };
  }

  /** Pages served from the disk cache instead of the network. */
  get diskHits(): number {
    return this.disk?.hits ?? 0;
  }

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
      hold.release();
      throw e;
    }
    return hold;
  }

  async close(): Promise<void> {}

  private release(pages: readonly number[]): void {
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

  /** Loads the missing ones of `pages` (sorted), consecutive missing pages in one request. */
  private async ensure(pages: readonly number[]): Promise<void> {
    const waits: Array<Promise<void>> = [];
    let run: number[] = [];
    const flush = (): void => {
      if (run.length === 0) return;
      const r = run;
      run = [];
      const p = this.loadRun(r);
      for (const page of r) this.loading.set(page, p);
      void p.then(
        () => r.forEach((page) => this.loading.delete(page)),
        () => r.forEach((page) => this.loading.delete(page)),
      );
      waits.push(p);
    };
    for (const page of pages) {
      if (Atomics.load(this.map, page) >= 0) continue;
      const pending = this.loading.get(page);
      if (pending) {
        waits.push(pending);
        continue;
      }
      if (run.length > 0 && (run[run.length - 1] !== page - 1 || run.length >= MAX_RUN_PAGES)) flush();
      run.push(page);
    }
    flush();
    await Promise.all(waits);
  }

  private async loadRun(run: number[]): Promise<void> {
    const slots: number[] = [];
    for (let i = 0; i < run.length; i++) slots.push(await this.slot());
    const ps = this.pageSize;
    const first = run[0]!;
    const end = Math.min((run[run.length - 1]! + 1) * ps, this.dataEnd);
    const views = run.map((p, i) => new Uint8Array(this.pool, slots[i]! * ps, Math.min(ps, end - p * ps)));
    try {
      // Pages already on the local disk cost no request; the rest come in one GET.
      let fromDisk = true;
      if (this.disk) {
        for (let i = 0; i < run.length && fromDisk; i++) fromDisk = await this.disk.read(run[i]!, views[i]!);
      } else fromDisk = false;
      if (!fromDisk) {
        const bytes = await this.limited(() => this.client.get(first * ps, end - first * ps, this.etag));
        views.forEach((v, i) => v.set(bytes.bytes.subarray(i * ps, i * ps + v.byteLength)));
        this.pagesRead += run.length;
        if (this.disk) for (let i = 0; i < run.length; i++) void this.disk.write(run[i]!, views[i]!.slice());
      }
    } catch (e) {
      for (const s of slots) this.free.push(s);
      throw e;
    }
    run.forEach((p, i) => {
      this.slotPage[slots[i]!] = p;
      Atomics.store(this.map, p, slots[i]!);
    });
  }

  private async limited<T>(f: () => Promise<T>): Promise<T> {
    while (this.inFlight >= this.concurrency) await new Promise<void>((r) => this.queue.push(r));
    this.inFlight++;
    try {
      return await f();
    } finally {
      this.inFlight--;
      this.queue.shift()?.();
    }
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

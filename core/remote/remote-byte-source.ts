import type { RangeClient } from './range-client.js';
import type { RemoteSnapshot } from './remote-file.js';
import { SyncFetcher } from './sync-fetch.js';

/**
 * The most one fetch of the pool asks for. A page up to this size is fetched whole (a dump
 * walks samples in page order: one request per page); a larger page (FFCV allows pages of
 * GiBs) is fetched in windows of this size, aligned from the page's start, so a sample
 * read never costs its whole page in memory or on the wire.
 */
export const FETCH_WINDOW = 8 << 20;

/** Bytes of fetched windows a byte source keeps (BETON_REMOTE_KEEP_MB, default 64 MiB). */
export function keptBytes(): number {
  const v = Number(process.env['BETON_REMOTE_KEEP_MB']);
  return Number.isFinite(v) && v > 0 ? Math.floor(v * (1 << 20)) : 64 << 20;
}

/**
 * A remote .beton as the Reader's synchronous byte source: the bytes the open fetched
 * (snapshot) are served from memory; a read in the data pages fetches its window (its
 * whole page when pages are small) once, with SyncFetcher (ETag pinned), and the last
 * windows are kept up to a budget in bytes, not in pages: a file of 2 GiB pages costs
 * the budget, not eight pages. A read crossing a window's edge is fetched exactly (a
 * sample larger than a window costs its own size, which nothing can avoid).
 */
export class RemoteByteSource {
  readonly name: string;
  readonly size: number;
  private readonly prefix: Uint8Array;
  private readonly tail: Uint8Array;
  /** Kept windows by start offset, least recently used first. */
  private readonly windows = new Map<number, Uint8Array>();
  private held = 0;
  private readonly budget = keptBytes();
  private fetcher: SyncFetcher | null = null;

  constructor(readonly snapshot: RemoteSnapshot) {
    this.name = snapshot.url;
    this.size = snapshot.size;
    this.prefix = new Uint8Array(snapshot.prefix);
    this.tail = new Uint8Array(snapshot.tail);
  }

  /** Bytes [offset, offset+length), shorter if the object ends first. */
  read(offset: number, length: number): Uint8Array {
    const end = Math.min(offset + length, this.size);
    if (end <= offset) return new Uint8Array(0);
    if (end <= this.prefix.byteLength) return this.prefix.slice(offset, end);
    const t0 = this.snapshot.tailStart;
    if (offset >= t0) return this.tail.slice(offset - t0, end - t0);
    const w = this.windowOf(offset);
    if (end > w.end) return this.fetch(offset, end - offset).slice();
    let bytes = this.windows.get(w.start);
    if (bytes) this.windows.delete(w.start);
    else {
      bytes = this.fetch(w.start, w.end - w.start);
      this.makeRoom(bytes.byteLength);
      this.held += bytes.byteLength;
    }
    this.windows.set(w.start, bytes);
    const at = offset - w.start;
    return bytes.slice(at, at + (end - offset));
  }

  /**
   * Fetches the windows holding these byte ranges with `client` (async, several GETs in
   * flight), so the synchronous reads that follow find them: a server answering previews
   * does not block its event loop on the network, and a dump overlaps its GETs. Only as
   * many windows as the budget holds are fetched (in the ranges' order); the reads past
   * them fetch their own.
   */
  async prefetch(ranges: ReadonlyArray<{ ptr: number; size: number }>, client: RangeClient): Promise<void> {
    const t0 = this.snapshot.tailStart;
    const want = new Map<number, number>();
    let total = 0;
    for (const r of ranges) {
      if (r.size === 0 || r.ptr + r.size <= this.prefix.byteLength || r.ptr >= t0) continue;
      const w = this.windowOf(r.ptr);
      if (r.ptr + r.size > w.end || want.has(w.start)) continue;
      if (total + (w.end - w.start) > this.budget) break;
      total += w.end - w.start;
      want.set(w.start, w.end);
    }
    const missing = [...want].filter(([s]) => !this.windows.has(s));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const [start, end] = missing[next++]!;
        const r = await client.get(start, end - start, this.snapshot.etag);
        if (this.windows.has(start)) continue;
        this.makeRoom(r.bytes.byteLength);
        this.held += r.bytes.byteLength;
        this.windows.set(start, r.bytes);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, missing.length) }, worker));
  }

  /** Bytes held in kept windows (tests and the profiler read it). */
  get keptBytes(): number {
    return this.held;
  }

  /** The fetch window holding `offset` (a data byte): its page, or a FETCH_WINDOW slice of it. */
  private windowOf(offset: number): { start: number; end: number } {
    const ps = this.snapshot.pageSize;
    const pageStart = Math.floor(offset / ps) * ps;
    const pageEnd = Math.min(pageStart + ps, this.snapshot.tailStart);
    const unit = Math.min(ps, FETCH_WINDOW);
    const start = pageStart + Math.floor((offset - pageStart) / unit) * unit;
    return { start, end: Math.min(start + unit, pageEnd) };
  }

  /** Drops the least recently used windows until `n` more bytes fit the budget. */
  private makeRoom(n: number): void {
    for (const [start, bytes] of this.windows) {
      if (this.held + n <= this.budget) return;
      this.windows.delete(start);
      this.held -= bytes.byteLength;
    }
  }

  private fetch(offset: number, length: number): Uint8Array {
    this.fetcher ??= new SyncFetcher(this.name);
    return this.fetcher.read(offset, length, this.snapshot.etag);
  }

  close(): void {
    this.fetcher?.close();
    this.fetcher = null;
  }
}

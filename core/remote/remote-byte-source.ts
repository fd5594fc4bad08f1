import type { RangeClient } from './range-client.js';
import type { RemoteSnapshot } from './remote-file.js';
import { SyncFetcher } from './sync-fetch.js';

/** Data pages kept by a Reader over a remote file (a dump walks samples in page order). */
const KEPT_PAGES = 8;

/**
 * A remote .beton as the Reader's synchronous byte source: the bytes the open fetched
 * (snapshot) are served from memory; a read in the data pages fetches its whole page
 * once (SyncFetcher, ETag pinned) and keeps the last few pages.
 */
export class RemoteByteSource {
  readonly name: string;
  readonly size: number;
  private readonly prefix: Uint8Array;
  private readonly tail: Uint8Array;
  private readonly pages = new Map<number, Uint8Array>();
  private fetcher: SyncFetcher | null = null;
  /** Pages kept: KEPT_PAGES, or as many as the last prefetch asked for. */
  private keep = KEPT_PAGES;

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
    const ps = this.snapshot.pageSize;
    const page = Math.floor(offset / ps);
    if (Math.floor((end - 1) / ps) !== page) return this.fetch(offset, end - offset);
    let bytes = this.pages.get(page);
    if (bytes) this.pages.delete(page);
    else {
      const start = page * ps;
      bytes = this.fetch(start, Math.min(start + ps, t0) - start);
      if (this.pages.size >= this.keep) this.pages.delete(this.pages.keys().next().value!);
    }
    this.pages.set(page, bytes);
    const at = offset - page * ps;
    return bytes.slice(at, at + (end - offset));
  }

  /**
   * Fetches the data pages holding these byte ranges with `client` (async, several GETs in
   * flight), so the synchronous reads that follow find them: a server answering previews
   * does not block its event loop on the network, and a dump overlaps its GETs.
   */
  async prefetch(ranges: ReadonlyArray<{ ptr: number; size: number }>, client: RangeClient): Promise<void> {
    const ps = this.snapshot.pageSize;
    const t0 = this.snapshot.tailStart;
    const want = new Set<number>();
    for (const r of ranges) {
      if (r.size === 0 || r.ptr + r.size <= this.prefix.byteLength || r.ptr >= t0) continue;
      want.add(Math.floor(r.ptr / ps));
    }
    const missing = [...want].filter((p) => !this.pages.has(p));
    this.keep = Math.max(KEPT_PAGES, want.size);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const page = missing[next++]!;
        const start = page * ps;
        const r = await client.get(start, Math.min(start + ps, t0) - start, this.snapshot.etag);
        if (this.pages.size >= this.keep) this.pages.delete(this.pages.keys().next().value!);
        this.pages.set(page, r.bytes);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, missing.length) }, worker));
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

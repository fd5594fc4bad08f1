import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { open, rename, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/** Default byte limit of the disk cache: 20 GiB. */
export const DEFAULT_CACHE_BYTES = 20 * 2 ** 30;

/**
 * An optional local cache of a remote file's pages (`--cache-dir`), shared by epochs and
 * by processes: one file per page under a folder named by a hash of URL + ETag + page
 * size, so a replaced object never serves old pages. A page counts only if its file has
 * exactly the page's length (a write cut short is not a hit); files are written under a
 * temporary name and renamed. Least recently used pages (by mtime, touched on a hit) go
 * when the folder passes its byte limit.
 */
export class DiskCache {
  private readonly dir: string;
  /** page file name → bytes, oldest use first (insertion order). */
  private readonly lru = new Map<string, number>();
  private total = 0;
  hits = 0;

  constructor(
    root: string,
    url: string,
    etag: string | null,
    pageSize: number,
    private readonly limit = DEFAULT_CACHE_BYTES,
  ) {
    const id = createHash('sha256')
      .update(`${url}\n${etag ?? ''}\n${pageSize}`)
      .digest('hex')
      .slice(0, 24);
    this.dir = join(root, id);
    mkdirSync(this.dir, { recursive: true });
    const found = readdirSync(this.dir)
      .filter((n) => /^p\d+$/.test(n))
      .map((n) => {
        const st = statSync(join(this.dir, n));
        return { n, size: st.size, t: st.mtimeMs };
      })
      .sort((a, b) => a.t - b.t);
    for (const f of found) {
      this.lru.set(f.n, f.size);
      this.total += f.size;
    }
  }

  /** Reads page `page` (`length` bytes) into `into`; false if not cached whole. */
  async read(page: number, into: Uint8Array): Promise<boolean> {
    const name = `p${page}`;
    if (this.lru.get(name) !== into.byteLength) return false;
    try {
      const fh = await open(join(this.dir, name), 'r');
      try {
        const { bytesRead } = await fh.read(into, 0, into.byteLength, 0);
        if (bytesRead !== into.byteLength) return false;
      } finally {
        await fh.close();
      }
    } catch {
      return false;
    }
    this.lru.delete(name);
    this.lru.set(name, into.byteLength);
    this.hits++;
    const now = new Date();
    void utimes(join(this.dir, name), now, now).catch(() => undefined);
    return true;
  }

  /** Stores a page (errors ignored: the cache is an optimisation, never a reason to fail). */
  async write(page: number, bytes: Uint8Array): Promise<void> {
    const name = `p${page}`;
    if (this.lru.has(name)) return;
    const tmp = join(this.dir, `.${name}.${process.pid}.tmp`);
    try {
      const fh = await open(tmp, 'w');
      try {
        await fh.write(bytes, 0, bytes.byteLength, 0);
      } finally {
        await fh.close();
      }
      await rename(tmp, join(this.dir, name));
      this.lru.set(name, bytes.byteLength);
      this.total += bytes.byteLength;
      await this.evict();
    } catch {
      await unlink(tmp).catch(() => undefined);
    }
  }

  private async evict(): Promise<void> {
    for (const [name, size] of this.lru) {
      if (this.total <= this.limit) return;
      this.lru.delete(name);
      this.total -= size;
      await unlink(join(this.dir, name)).catch(() => undefined);
    }
  }
}

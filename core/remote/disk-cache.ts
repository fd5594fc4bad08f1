import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BetonError } from '../format/errors.js';

/** Default byte limit of the disk cache: 20 GiB. */
export const DEFAULT_CACHE_BYTES = 20 * 2 ** 30;

/** Each page file ends with the SHA-256 of the page: a page edited or cut short is never served. */
const SUM = 32;
/** The page files' format, in the folder's name: pages of an older format are never read. */
const FORMAT = 'v2-sha256';

/**
 * An optional local cache of a remote file's pages (`--cache-dir`), shared by epochs and
 * by processes: one file per page under a folder named by a hash of URL + version pin +
 * page size, so a replaced object never serves old pages. A page file is the page followed
 * by its SHA-256, checked on every read: a file of the wrong length or checksum (cut
 * short, edited, a disk fault) is deleted and the page fetched again and rewritten. Files
 * are written under a temporary name and renamed. Least recently used pages (by mtime,
 * touched on a hit) go when the folder passes its byte limit.
 */
export class DiskCache {
  private readonly dir: string;
  /** page file name → bytes, oldest use first (insertion order). */
  private readonly lru = new Map<string, number>();
  private total = 0;
  hits = 0;
  /** Pages found bad (wrong length or checksum) and dropped. */
  bad = 0;

  constructor(
    root: string,
    url: string,
    etag: string | null,
    pageSize: number,
    private readonly limit = DEFAULT_CACHE_BYTES,
  ) {
    const id = createHash('sha256')
      .update(`${FORMAT}\n${url}\n${etag ?? ''}\n${pageSize}`)
      .digest('hex')
      .slice(0, 24);
    this.dir = join(usableCacheDir(root), id);
    makeDir(this.dir, root);
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

  /** Reads page `page` (`length` bytes) into `into`; false if not cached whole and intact. */
  async read(page: number, into: Uint8Array): Promise<boolean> {
    const name = `p${page}`;
    const stored = this.lru.get(name);
    if (stored === undefined) return false;
    const path = join(this.dir, name);
    const file = new Uint8Array(into.byteLength + SUM);
    let ok = false;
    try {
      const fh = await open(path, 'r');
      try {
        const { bytesRead } = await fh.read(file, 0, file.byteLength, 0);
        const st = await fh.stat();
        const sum = createHash('sha256').update(file.subarray(0, into.byteLength)).digest();
        ok = st.isFile() && st.size === file.byteLength && bytesRead === file.byteLength && sum.equals(file.subarray(into.byteLength));
      } finally {
        await fh.close();
      }
    } catch {
      ok = false;
    }
    if (!ok) {
      // Dropped, so the fetch that follows writes it anew.
      this.bad++;
      this.forget(name);
      await unlink(path).catch(() => undefined);
      return false;
    }
    into.set(file.subarray(0, into.byteLength));
    this.lru.delete(name);
    this.lru.set(name, stored);
    this.hits++;
    const now = new Date();
    void utimes(path, now, now).catch(() => undefined);
    return true;
  }

  /** Stores a page (errors ignored: the cache is an optimisation, never a reason to fail). */
  async write(page: number, bytes: Uint8Array): Promise<void> {
    const name = `p${page}`;
    if (this.lru.has(name)) return;
    const tmp = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const fh = await open(tmp, 'wx');
      try {
        await fh.write(bytes, 0, bytes.byteLength, 0);
        await fh.write(createHash('sha256').update(bytes).digest(), 0, SUM, bytes.byteLength);
      } finally {
        await fh.close();
      }
      await rename(tmp, join(this.dir, name));
      this.lru.set(name, bytes.byteLength + SUM);
      this.total += bytes.byteLength + SUM;
      await this.evict();
    } catch {
      await unlink(tmp).catch(() => undefined);
    }
  }

  private forget(name: string): void {
    const size = this.lru.get(name);
    if (size === undefined) return;
    this.lru.delete(name);
    this.total -= size;
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

const unusable = (root: string, why: string): BetonError =>
  new BetonError('CACHE_DIR_UNUSABLE', `--cache-dir ${root}: ${why}`, {
    hint: 'Give a folder on a local disk this user can write to (it is created if missing).',
  });

/**
 * Creates the folder and its missing parents one level at a time (Node's recursive mkdir
 * spins forever under /proc/self), then refuses a folder this process cannot use: not a
 * folder, not writable. One line, before any page is fetched.
 */
function makeDir(dir: string, root: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if (!lstatSync(d).isDirectory() && !statSync(d).isDirectory()) throw unusable(root, `${d} is not a folder`);
      break;
    } catch (e) {
      if (e instanceof BetonError) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw unusable(root, (e as Error).message);
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw unusable(root, (e as Error).message);
    }
  }
}

/** `root` checked: a folder (created if missing) where a file can be written; else CACHE_DIR_UNUSABLE. */
export function usableCacheDir(root: string): string {
  makeDir(root, root);
  const probe = join(root, `.beton-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = openSync(probe, 'wx');
    try {
      writeSync(fd, new Uint8Array(1));
      if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    } finally {
      closeSync(fd);
    }
    unlinkSync(probe);
  } catch (e) {
    throw unusable(root, `cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return root;
}

import { readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FsEntry, FsListing } from '../api/contract.js';
import { IMAGE_EXTENSIONS } from '../sources/image-folder.js';
import { ServiceError } from './service-error.js';

const TABLES = ['.csv', '.tsv', '.parquet', '.jsonl', '.npy', '.npz'];
const VIDEOS = ['.mp4', '.avi', '.mkv', '.mov', '.webm'];

function roleOf(name: string, dir: boolean): FsEntry['role'] {
  if (dir) return 'dir';
  const ext = extname(name).toLowerCase();
  if (ext === '.beton') return 'beton';
  if (TABLES.includes(ext)) return 'table';
  if (IMAGE_EXTENSIONS.includes(ext)) return 'image';
  if (VIDEOS.includes(ext)) return 'video';
  return 'other';
}

/**
 * Confines every path a client names to the allowed roots (beton serve: the folders given
 * on the command line). Paths are resolved and symlinks followed before the check, so
 * `..` and links cannot escape. Electron passes no roots: the user picks files with
 * native dialogs, and any local path is theirs.
 */
export class FsAccess {
  readonly roots: string[];

  constructor(roots: readonly string[] | null) {
    this.roots = roots ? roots.map((r) => realpathSync(resolve(r))) : [];
  }

  get confined(): boolean {
    return this.roots.length > 0;
  }

  /** The real path of `p` if it is inside a root (for outputs: its folder must be), else a FORBIDDEN error. */
  check(p: string, opts: { mustExist?: boolean } = {}): string {
    if (!isAbsolute(p) && !this.confined) p = resolve(p);
    const abs = isAbsolute(p) ? p : resolve(this.roots[0]!, p);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      if (opts.mustExist !== false) throw new ServiceError('NOT_FOUND', `${p} does not exist`);
      // A file to be created: its folder must exist and be allowed.
      real = join(realpathSync(dirname(abs)), abs.slice(dirname(abs).length + 1));
    }
    if (this.confined && !this.roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep))) {
      throw new ServiceError('FORBIDDEN', `${p} is outside the folders this server may open (${this.roots.join(', ')})`);
    }
    return real;
  }

  browse(p?: string): FsListing {
    const dir = p ? this.check(p) : (this.roots[0] ?? process.cwd());
    let st;
    try {
      st = statSync(dir);
    } catch {
      throw new ServiceError('NOT_FOUND', `${dir} does not exist`);
    }
    if (!st.isDirectory()) throw new ServiceError('BAD_REQUEST', `${dir} is not a folder`);
    const entries: FsEntry[] = [];
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const full = join(dir, e.name);
      let size = 0;
      let isDir = e.isDirectory();
      try {
        const s = statSync(full);
        size = s.size;
        isDir = s.isDirectory();
      } catch {
        continue;
      }
      entries.push({ name: e.name, path: full, kind: isDir ? 'dir' : 'file', size, role: roleOf(e.name, isDir) });
    }
    entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'dir' ? -1 : 1));
    const parentDir = dirname(dir);
    const parentAllowed = parentDir !== dir && (!this.confined || this.roots.some((r) => !relative(r, parentDir).startsWith('..')));
    return { path: dir, parent: parentAllowed ? parentDir : null, entries };
  }
}

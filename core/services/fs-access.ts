import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FsEntry, FsListing } from '../api/contract.js';
import { IMAGE_EXTENSIONS } from '../sources/common/image-extensions.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import { isPathPattern } from '../sources/common/path-patterns.js';
import { ServiceError } from './service-error.js';
import { confineOpensTo } from '../native/confined-opens.js';

const TABLES = ['.csv', '.tsv', '.parquet', '.jsonl', '.npy', '.npz'];
const VIDEOS = ['.mp4', '.avi', '.mkv', '.mov', '.webm'];
/** Links followed while resolving one path, as the kernel's ELOOP limit. */
const MAX_LINKS = 40;

function roleOf(name: string, dir: boolean): FsEntry['role'] {
  if (dir) return 'dir';
  const ext = extname(name).toLowerCase();
  if (ext === '.beton') return 'beton';
  if (TABLES.includes(ext)) return 'table';
  if (IMAGE_EXTENSIONS.includes(ext)) return 'image';
  if (VIDEOS.includes(ext)) return 'video';
  return 'other';
}

/** Where a path leads: its real path, or for a missing one where it would be created. */
interface Resolved {
  path: string;
  exists: boolean;
  /** Missing components after the deepest existing folder (0 when it exists). */
  missing: number;
}

/**
 * Resolves every symlink of `abs`, also for paths that do not exist yet: the deepest
 * existing ancestor is made real and the rest appended, and a dangling link is followed
 * to where it points. So a missing path is judged by where it would lead, and "outside"
 * is decided the same way whether the thing outside exists or not.
 */
function resolveFully(abs: string, depth = 0): Resolved {
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = realpathSync.native(cur);
      return { path: rest.length ? join(real, ...rest) : real, exists: rest.length === 0, missing: rest.length };
    } catch {
      // Missing, a dangling link, a loop, or unreadable: look at the entry itself.
    }
    let link: string | null = null;
    try {
      if (lstatSync(cur).isSymbolicLink()) link = readlinkSync(cur);
    } catch {
      link = null;
    }
    if (link !== null && depth < MAX_LINKS) {
      const target = resolveFully(resolve(dirname(cur), link), depth + 1);
      return { path: rest.length ? join(target.path, ...rest) : target.path, exists: false, missing: target.missing + rest.length };
    }
    const parent = dirname(cur);
    if (parent === cur) return { path: abs, exists: false, missing: rest.length };
    rest.unshift(basename(cur));
    cur = parent;
  }
}

/**
 * Confines every path a client names to the allowed roots (beton serve: the folders given
 * on the command line). Paths are resolved and symlinks followed before the check, so
 * `..` and links cannot escape, and a path outside gets FORBIDDEN whether it exists or
 * not (the answer must not tell). Electron passes no roots: the user picks files with
 * native dialogs, and any local path is theirs.
 */
export class FsAccess {
  readonly roots: string[];

  constructor(roots: readonly string[] | null) {
    this.roots = roots ? roots.map((r) => realpathSync.native(resolve(r))) : [];
    // Inputs opened later are checked again on their descriptors (a folder swapped for a link after this check).
    confineOpensTo(this.roots);
  }

  get confined(): boolean {
    return this.roots.length > 0;
  }

  private inside(real: string): boolean {
    return this.roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep));
  }

  private absolute(p: string): string {
    // Relative paths name the first served folder (beton serve) or the working directory.
    return isAbsolute(p) ? resolve(p) : resolve(this.confined ? this.roots[0]! : process.cwd(), p);
  }

  private forbidden(p: string): ServiceError {
    return new ServiceError('FORBIDDEN', `${p} is outside the folders this server may open (${this.roots.join(', ')})`);
  }

  /**
   * The real path of `p` if it is inside a root, else FORBIDDEN (checked first, so an
   * outside path never gets NOT_FOUND). An output (`mustExist: false`) may be missing but
   * its folder must exist.
   */
  check(p: string, opts: { mustExist?: boolean } = {}): string {
    const r = resolveFully(this.absolute(p));
    if (this.confined && !this.inside(r.path)) throw this.forbidden(p);
    if (!r.exists) {
      // A relative path says what it was taken relative to: "photos/train does not exist" alone did not.
      const shown = isAbsolute(p) ? p : `${p} (relative to ${this.confined ? this.roots[0]! : process.cwd()}, so ${this.absolute(p)})`;
      if (opts.mustExist !== false) throw new ServiceError('NOT_FOUND', `${shown} does not exist`);
      if (r.missing > 1) throw new ServiceError('NOT_FOUND', `the folder of ${shown} does not exist`);
    }
    return r.path;
  }

  /**
   * A source path, which may be a pattern (`shards/train-{000..009}.tar`, `data/*.csv`): a
   * pattern names no one file, so it is confined by its folder part (before the first
   * component with a wildcard or brace; FORBIDDEN when that leads outside), and each name it
   * expands to by the read guard, as it is expanded (core/sources/common/path-patterns.ts). Not a
   * pattern: check().
   */
  checkSource(p: string): string {
    if (!isPathPattern(p)) return this.check(p);
    const abs = this.absolute(p);
    if (!this.confined) return abs;
    const parts = abs.split(sep);
    const k = parts.findIndex((c) => /[*?{]/.test(c));
    const prefix = parts.slice(0, k).join(sep) || sep;
    if (!this.inside(resolveFully(prefix).path)) throw this.forbidden(p);
    return abs;
  }

  /**
   * For the files a request makes the server read on its own (image-list rows, class
   * folders, videos of a list): the path to open, symlinks resolved, or FORBIDDEN when it
   * leads outside. Missing files inside pass, so the reader reports them as it always does.
   * Null when not confined (Electron: any local path is the user's).
   */
  readGuard(): ReadGuard | undefined {
    if (!this.confined) return undefined;
    return (p: string): string => {
      const r = resolveFully(resolve(p));
      if (!this.inside(r.path)) throw this.forbidden(p);
      return r.path;
    };
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
      // A link that leads outside is listed as it is, without looking at its target: its
      // kind and size would tell what exists out there.
      if (e.isSymbolicLink() && this.confined && !this.inside(resolveFully(full).path)) {
        entries.push({ name: e.name, path: full, kind: 'file', size: 0, role: 'other' });
        continue;
      }
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

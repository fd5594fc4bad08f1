import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { refusedBy, type ReadGuard } from './read-guard.js';

/** Python's string order (code points), which torchvision's sorted() uses. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether entry `e` of `dir` is a folder (a symlink to one included). With a `guard`
 * (beton serve), a link that leads outside the served folders throws the guard's error
 * before its target is looked at, so the answer is the same whether that target exists, is
 * a folder or is a file.
 */
export function isSubfolder(dir: string, e: Dirent, guard?: ReadGuard): boolean {
  if (e.isDirectory()) return true;
  if (!e.isSymbolicLink()) return false;
  const p = join(dir, e.name);
  if (guard) guard(p);
  return isDir(p);
}

/** Sub-folders of `root` (symlinks to folders included), sorted: the class names of an ImageFolder-style tree. */
export function classFolderNames(root: string, guard?: ReadGuard): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => isSubfolder(root, e, guard))
    .map((e) => e.name)
    .sort(byCodePoint);
}

/**
 * Files under `top` that `accept` takes, in torchvision's ImageFolder order: every folder
 * of the walk in sorted path order, files sorted within it. Symlinked folders are followed
 * once (a symlink loop is skipped, not followed forever); unreadable folders are skipped.
 * With a `guard` (beton serve), nothing outside the served folders is listed: a linked
 * file that `accept` takes is kept (it is refused when read, as a bad sample), any other
 * link leading outside ends the walk with the guard's error, naming the link to fix.
 */
export function walkFiles(top: string, accept: (name: string) => boolean, guard?: ReadGuard): string[] {
  const dirs: Array<{ path: string; files: string[] }> = [];
  const seen = new Set<string>();
  const visit = (dir: string): void => {
    if (guard) guard(dir);
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const files: string[] = [];
    for (const e of entries) {
      const p = join(dir, e.name);
      if (guard && e.isSymbolicLink() && accept(e.name) && refusedBy(guard, p)) {
        files.push(e.name);
        continue;
      }
      if (isSubfolder(dir, e, guard)) visit(p);
      else if (accept(e.name)) files.push(e.name);
    }
    dirs.push({ path: dir, files: files.sort(byCodePoint) });
  };
  visit(top);
  dirs.sort((a, b) => byCodePoint(a.path, b.path));
  return dirs.flatMap((d) => d.files.map((f) => join(d.path, f)));
}

import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadGuard } from './read-guard.js';

/** Python's string order (code points), which torchvision's sorted() uses. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Sub-folders of `root` (symlinks to folders included), sorted: the class names of an ImageFolder-style tree. */
export function classFolderNames(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDir(join(root, e.name))))
    .map((e) => e.name)
    .sort(byCodePoint);
}

/**
 * Files under `top` that `accept` takes, in torchvision's ImageFolder order: every folder
 * of the walk in sorted path order, files sorted within it. Symlinked folders are followed
 * once (a symlink loop is skipped, not followed forever); unreadable folders are skipped.
 * With a `guard` (beton serve), a folder that leads outside the served folders is not
 * listed: the guard's error ends the walk, so the user learns which link to fix.
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
      if (e.isDirectory() || (e.isSymbolicLink() && isDir(p))) visit(p);
      else if (accept(e.name)) files.push(e.name);
    }
    dirs.push({ path: dir, files: files.sort(byCodePoint) });
  };
  visit(top);
  dirs.sort((a, b) => byCodePoint(a.path, b.path));
  return dirs.flatMap((d) => d.files.map((f) => join(d.path, f)));
}

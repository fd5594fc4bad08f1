import { readlinkSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { BetonError } from '../format/errors.js';

/**
 * Read confinement at open time (issue 19 item 4). `beton serve` checks a client's path
 * (FsAccess resolves links, refuses what leads outside its folders) and later a reader opens
 * it: a folder on the path swapped for a link in between would let the reader open a file
 * outside. So every input opened through core/native/regular-file.ts under a served root is
 * checked again on its descriptor: where the opened file really is (/proc/self/fd) must
 * still be inside a served root, else it is closed unread. Roots are registered by the
 * service when it starts confined; with none (the CLI, Electron) nothing changes.
 */
const roots = new Set<string>();

/** Registers real, absolute roots whose files must stay inside them once opened. */
export function confineOpensTo(realRoots: readonly string[]): void {
  for (const r of realRoots) roots.add(r);
}

const inside = (p: string): boolean => {
  for (const r of roots) if (p === r || p.startsWith(r.endsWith(sep) ? r : r + sep)) return true;
  return false;
};

export class MovedOutsideError extends BetonError<'FORBIDDEN'> {
  constructor(path: string) {
    super(
      'FORBIDDEN',
      `${path}: the file opened is outside the served folders (it or a folder on its path was replaced by a link since it was checked); not read`,
    );
  }
}

/** Throws MovedOutsideError when `fd`, opened from `path` under a served root, leads outside every root. */
export function checkOpened(fd: number, path: string): void {
  if (roots.size === 0 || !inside(resolve(path))) return;
  let real: string;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    real = realpathSync.native(path); // no /proc (macOS): the path made real again, best effort
  }
  if (!inside(real)) throw new MovedOutsideError(path);
}

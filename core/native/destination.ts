import { lstatSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NotAFileError } from '../format/errors.js';
import { fileKind } from './regular-file.js';

const lstatOrNull = (p: string): Stats | null => {
  try {
    return lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
};

/**
 * Where a copy may be written: `path` if it is a regular file or absent (its folder
 * existing), `path/name` if `path` is a folder and `name` is given (a directory target, as
 * cp has it), else NotAFileError naming what is there. A device node, a FIFO, a socket or a
 * symbolic link is refused, never replaced: a copy renamed over /dev/null made it a file;
 * a link would be replaced by the file instead of written through. Checked again by
 * checkReplaceable just before the rename.
 */
export function checkedDestination(path: string, name?: string): string {
  const st = lstatOrNull(path);
  if (st?.isDirectory() && name !== undefined) return checkedDestination(join(path, basename(name)));
  if (st === null) {
    const dir = lstatOrNull(dirname(path));
    if (!dir) throw new NotAFileError(dirname(path), 'missing', 'destination folder');
    if (!dir.isDirectory())
      throw new NotAFileError(dirname(path), dir.isSymbolicLink() ? 'a symbolic link' : fileKind(dir), 'destination folder');
    return path;
  }
  checkReplaceable(path);
  return path;
}

/** `path` is absent or a regular file (not a link, a device, a FIFO, a folder): else NotAFileError. */
export function checkReplaceable(path: string): void {
  const st = lstatOrNull(path);
  if (st === null || st.isFile()) return;
  throw new NotAFileError(path, st.isSymbolicLink() ? 'a symbolic link' : fileKind(st), 'destination');
}

import { lstatSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BetonError, NotAFileError } from '../format/errors.js';
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
    // The folder may be reached through a link (/tmp on some systems); it must be a folder.
    let dir: Stats | null = null;
    try {
      dir = statSync(dirname(path));
    } catch {
      dir = null;
    }
    if (!dir?.isDirectory())
      throw new BetonError(
        'NO_SUCH_FOLDER',
        `${dirname(path)} ${dir ? 'is not a folder' : 'does not exist'}: the destination's folder must exist`,
      );
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

import { closeSync, constants, createReadStream, fstatSync, openSync, readFileSync, type ReadStream, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { NotAFileError } from '../format/errors.js';
import { checkOpened } from './confined-opens.js';

/*
 * The one way core opens an input file (a table, a .beton, a list, a config): open with
 * O_NONBLOCK, then fstat the descriptor and refuse anything but a regular file. O_NONBLOCK
 * is what keeps a named pipe from blocking open() until some writer appears (a FIFO
 * named data.csv hung the CLI, and froze `beton serve`'s thread pool); fstat on the opened
 * descriptor (not a stat of the path beforehand) means what is checked is what is read.
 * On a regular file O_NONBLOCK changes nothing. Under `beton serve` the descriptor must also
 * still lead inside the served folders (confined-opens.ts).
 */
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What a non-regular file is, in words ("a named pipe (FIFO)"). */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The error for a non-regular file: a folder keeps the system's EISDIR (what opening a
 * folder always answered, with its hint), anything else is NOT_A_FILE.
 */
function notRegular(path: string, st: Stats, what: string | undefined): Error {
  if (st.isDirectory())
    return Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${path}'`), {
      code: 'EISDIR',
      syscall: 'open',
      path,
      errno: -21,
    });
  return new NotAFileError(path, fileKind(st), what);
}

/** A descriptor on `path` and its size, or NotAFileError (the descriptor closed). `what` names the role in the message. */
export function openRegularSync(path: string, what?: string): { fd: number; size: number } {
  const fd = openSync(path, FLAGS);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  try {
    if (!st.isFile()) throw notRegular(path, st, what);
    checkOpened(fd, path);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return { fd, size: st.size };
}

/** As openRegularSync, as a FileHandle (fs/promises readers). */
export async function openRegular(path: string, what?: string): Promise<{ fh: FileHandle; size: number }> {
  const fh = await open(path, FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notRegular(path, st, what);
    checkOpened(fh.fd, path);
    return { fh, size: st.size };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** createReadStream over a checked descriptor (closed when the stream ends or is destroyed). */
export function regularReadStream(path: string, opts: { start?: number; end?: number; encoding?: BufferEncoding } = {}): ReadStream {
  const { fd } = openRegularSync(path);
  return createReadStream(path, { ...opts, fd, autoClose: true });
}

/** The whole file as text (a config, a list), checked first. */
export function readRegularText(path: string, what?: string): string {
  const { fd } = openRegularSync(path, what);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

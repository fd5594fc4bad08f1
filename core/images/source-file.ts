import { closeSync, constants as fsConstants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isRGBPixels, type ImageInput, type RGBPixels } from '../fields/image-codec.js';
import { FIX_DATA, ImageReadError } from './read-error.js';
import { HEADER_PROBE_BYTES, headerDims, refuseFromHeader } from './header-limits.js';

export interface Source {
  /** The path (resolved against baseDir) or the bytes' name, for messages. */
  name: string;
  path?: string;
  bytes?: Uint8Array;
  /** The path is real and guarded: the opened file must still be at it (openRegular's `confined`). */
  confined?: boolean;
}

export function sourceOf(input: Exclude<ImageInput, RGBPixels>, baseDir?: string): Source {
  if (typeof input === 'string' || 'path' in input) {
    const p = typeof input === 'string' ? input : input.path;
    const path = baseDir && !isAbsolute(p) ? join(baseDir, p) : p;
    const confined = typeof input !== 'string' && 'confined' in input && input.confined === true;
    return confined ? { name: path, path, confined } : { name: path, path };
  }
  return { name: input.name ?? '<bytes>', bytes: input.file };
}

/*
 * Files are read with synchronous calls. Encoding runs one sample at a time per worker
 * thread, so nothing waits behind them, and each async fs call hops through the libuv
 * pool: reading a 70 KB JPEG measured ~30 µs synchronously against 300–700 µs with
 * fs/promises on a busy 2-core machine (it matters most for pass-through, ~20 µs of work).
 */

/**
 * Opens a file for reading without blocking on FIFOs (O_NONBLOCK) and refuses anything
 * that is not a regular file: reading a FIFO or a device named x.jpg would hang or never end.
 */
export function openRegular(path: string, confined = false): { fd: number; size: number } {
  // confined: the last component must not be a link (O_NOFOLLOW), and the file opened must be
  // the one the guard checked: its descriptor's real path is compared with `path` (already
  // real), so a folder swapped for a link to outside between check and open is caught.
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (confined ? fsConstants.O_NOFOLLOW : 0));
  } catch (e) {
    if (confined && (e as NodeJS.ErrnoException).code === 'ELOOP') throw new ImageReadError(MOVED);
    throw e;
  }
  try {
    if (confined && openedPath(fd, path) !== path) throw new ImageReadError(MOVED);
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : 'a device';
      throw new ImageReadError(`it is ${kind}, not a regular file; remove it from the image folder, or build with --on-error skip`);
    }
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

const MOVED = 'the file is no longer where it was checked (it or a folder on its path was replaced by a link since); not read';

/** Where descriptor `fd` really leads: /proc/self/fd on Linux; elsewhere the path made real again (best effort). */
function openedPath(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync.native(path);
  }
}

export function readRange(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new ImageReadError(`the file shrank while it was read; ${FIX_DATA}`);
    done += n;
  }
}

/** Refuses a file its size or header already rules out, before it is read (and allocated) whole. */
function checkHeader(fd: number, size: number): void {
  const head = new Uint8Array(Math.min(size, HEADER_PROBE_BYTES));
  readRange(fd, head, 0);
  const refused = refuseFromHeader(head, size);
  if (refused) throw refused;
}

/** transcodeSource's read buffer, reused from file to file (per thread: a module instance each). */
let scratch = Buffer.allocUnsafeSlow(1 << 17);

/**
 * The file's bytes in `scratch` (grown as needed): valid until the next call. Saves a fresh
 * allocation per image (and the garbage collector's work freeing it), ~40% of a read's CPU.
 */
export function readIntoScratch(path: string, confined = false): Buffer {
  const { fd, size } = openRegular(path, confined);
  try {
    checkHeader(fd, size);
    if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
    const view = scratch.subarray(0, size);
    readRange(fd, view, 0);
    return view;
  } finally {
    closeSync(fd);
  }
}

export function readWhole(path: string, confined = false): Buffer {
  const { fd, size } = openRegular(path, confined);
  try {
    checkHeader(fd, size);
    const buf = Buffer.allocUnsafeSlow(size);
    readRange(fd, buf, 0);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The dimensions a source file's header announces (null: bytes in memory, unreadable, or a header that does not say). */
export function sourceHeaderDims(input: ImageInput, baseDir?: string): { width: number; height: number } | null {
  if (isRGBPixels(input)) return null;
  const src = sourceOf(input, baseDir);
  if (src.bytes) return headerDims(src.bytes.subarray(0, HEADER_PROBE_BYTES));
  try {
    const { fd, size } = openRegular(src.path!, src.confined);
    try {
      const head = new Uint8Array(Math.min(size, HEADER_PROBE_BYTES));
      readRange(fd, head, 0);
      return headerDims(head);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // the read that follows reports why
  }
}

import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { BetonError } from '../format/errors.js';

/**
 * A file's identity for a claim about its exact bytes (a kept `beton check`): the sha256 of
 * the whole file, read from an open descriptor, so what is hashed is what that descriptor
 * reads — the file the analysis read, not whatever the path names later. Hashing is the
 * cost of reading the file once (docs/check.md gives the figure for 4 GiB), so the digest is
 * cached per file version: device, inode, size, mtime and ctime (nanoseconds). A rewrite in
 * place changes mtime/ctime, a swap changes the inode; either is hashed again.
 */

/** One stat's version key (BigInt stats: nanosecond times, no float rounding). */
export function versionKey(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * The version a kept result records (inode, size, mtime): while the file still shows it, the
 * result's hash is not computed again (the cache that outlives a process). ctime is left out:
 * a rename or chmod changes it, not the bytes.
 */
export function storedVersionKey(st: BigIntStats): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}`;
}

/** Whether two stats are the same version of the same file. */
export const sameVersion = (a: BigIntStats, b: BigIntStats): boolean => versionKey(a) === versionKey(b);

const CACHE_MAX = 256;
const cache = new Map<string, string>();

/** Bytes read per step; the event loop is yielded between steps (a 4 GiB file must not freeze `beton serve`). */
const CHUNK = 8 << 20;

/**
 * sha256 (hex) of a file's `size` bytes through `read(offset, length)` (positional reads on
 * one descriptor), cached under `st`'s version. Throws when fewer bytes come than `st` said
 * (the file shrank while hashed).
 */
export async function wholeFileSha256(
  st: BigIntStats,
  read: (offset: number, length: number) => Uint8Array | Promise<Uint8Array>,
  signal?: AbortSignal,
): Promise<string> {
  const key = versionKey(st);
  const hit = cache.get(key);
  if (hit) return hit;
  const size = Number(st.size);
  const h = createHash('sha256');
  for (let pos = 0; pos < size;) {
    signal?.throwIfAborted();
    const b = await read(pos, Math.min(CHUNK, size - pos));
    if (b.byteLength === 0)
      throw new BetonError('CHECK_FAILED', `the file ended at byte ${pos} while it was hashed (${size} bytes expected): it changed`, {
        hint: 'Run the check again once nothing writes to the file.',
      });
    h.update(b);
    pos += b.byteLength;
    await new Promise<void>((r) => setImmediate(r));
  }
  const hex = h.digest('hex');
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, hex);
  return hex;
}

/**
 * Mapping files and asking the kernel about their pages (beton_native's mmap.cc): the
 * loader's OS cache (core/loader/memory/os-cache.ts) and the profiler's page-cache
 * residency read .beton files through these.
 */
import { argumentError, requireInteger, requirePath } from './arguments.js';
import { type MadviseAdvice, loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/**
 * Maps a file read-only (NativeAddon.mmapFile). Whole (up to 4 GiB, what one ArrayBuffer
 * holds), or the window [offset, offset + length) clipped to the file's end: `offset` a
 * multiple of the system page size, `length` at most 2^32. Large files are mapped in
 * windows (the loader's OS cache: core/loader/memory/os-cache.ts).
 */
export function mmapFile(path: string, offset?: number, length?: number): ArrayBuffer {
  requirePath(path);
  if (offset === undefined) return callAddon(() => loadNative().mmapFile(path));
  requireInteger(offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
  requireInteger(length, 'length', 0, 2 ** 32);
  return callAddon(() => loadNative().mmapFile(path, offset, length));
}

/**
 * Paging hint for part of a buffer returned by {@link mmapFile}. Returns false
 * when the buffer is not a mapping (e.g. the Electron copy fallback).
 */
export function madvise(buffer: ArrayBuffer, offset: number, length: number, advice: MadviseAdvice): boolean {
  if (!(buffer instanceof ArrayBuffer)) throw argumentError('buffer must be an ArrayBuffer');
  requireInteger(offset, 'offset', 0, buffer.byteLength);
  requireInteger(length, 'length', 0, buffer.byteLength - offset);
  if (!['willneed', 'random', 'sequential', 'normal'].includes(advice)) {
    throw argumentError(`unknown advice ${String(advice)}`);
  }
  return callAddon(() => loadNative().madvise(buffer, offset, length, advice));
}

/**
 * Fraction (0..1) of `path`'s bytes held in the OS page cache now, by mincore(2); an empty
 * file counts as fully resident. Throws NativeError NATIVE_IO for a missing or odd file.
 */
export function pageCacheResidentFraction(path: string): number {
  requirePath(path);
  const r = callAddon(() => loadNative().pageCacheResidency(path));
  return r.sizeBytes === 0 ? 1 : Math.min(1, r.residentBytes / r.sizeBytes);
}

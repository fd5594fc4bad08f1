import type { FileHandle } from 'node:fs/promises';
import type { PageFetch } from './page-cache.js';

/**
 * A local file's pages for the process cache: one positional read per page (libuv's thread
 * pool = the page reader threads). `usedBytes` are the bytes of each page that hold objects
 * (from the allocation table): only those are read, so a half-empty page of 2^31 bytes
 * costs its objects, not 2 GiB. Absent: whole pages.
 */
export function fileFetch(fh: FileHandle, pageSize: number, usedBytes?: Uint32Array): PageFetch {
  return {
    maxRun: 1,
    pageBytes: (page) => Math.min(pageSize, usedBytes?.[page] ?? pageSize),
    fetch: async (first, views) => {
      for (let i = 0; i < views.length; i++) await readPage(fh, views[i]!, (first + i) * pageSize);
      return views.length;
    },
  };
}

/**
 * Largest length one positional read asks for: fs.read refuses 2^31 bytes and more (a page
 * may be 2^31), and Linux returns at most ~2 GiB per call anyway.
 */
export const READ_CHUNK_BYTES = 2 ** 30;

/** Reads `into.length` bytes from `position` (a plain number, exact to 2^53) in chunks; a page cut short by the end of the file stays zero past it. */
export async function readPage(fh: FileHandle, into: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < into.length;) {
    const { bytesRead } = await fh.read(into, done, Math.min(READ_CHUNK_BYTES, into.length - done), position + done);
    if (bytesRead === 0) return;
    done += bytesRead;
  }
}

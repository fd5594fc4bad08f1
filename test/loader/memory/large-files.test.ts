/**
 * Files far larger than one ArrayBuffer (issue 19, items 1 and 2), in seconds: the pages of a
 * small file are moved past 2^32 and 2^33 bytes, or onto 2^31-byte pages, in sparse files
 * (test/helpers/sparse-beton.ts), and both memory managers must load every sample's bytes.
 * Before: the OS cache mapped the whole file into one ArrayBuffer ("[INTERNAL] Cannot create
 * a Buffer larger than 0x100000000 bytes"); the process cache asked fs.read for 2^31 bytes
 * (SIGABRT in fs.read) and viewed a pool above 4 GiB as one Uint8Array ("Invalid typed array
 * length", reported as OUT_OF_MEMORY "(0.0 GiB per batch)").
 *
 * One file here, its pages at window edges and past 2^32, 2^33 and 2^34 bytes, one worker a
 * loader; the 4.5 GiB file, 2^31-byte and 512-byte pages are in large-files-pages.test.ts (slow
 * tier: a loader start boots its workers, ~1.5 s each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heapAccess } from '../../../core/loader/memory/heap-access.js';
import { readPage } from '../../../core/loader/memory/file-fetch.js';
import { Reader } from '../../../core/reader/reader.js';
import { spreadPages } from '../../helpers/sparse-beton.js';
import { blobOf, expectEverySample, GiB, loadAll, N, PS, pageAt, writeSmall } from '../../helpers/sparse-samples.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let small: string;
beforeAll(async () => {
  small = await writeSmall(dir);
});

describe('loading sparse files larger than 4 GiB', () => {
  it('pages at window edges, just below and at 2^32 and 2^33, and past 2^34 load with both managers', async () => {
    const file = join(dir, 'past-2-33.beton');
    const at = [GiB - PS, GiB, 2 ** 32 - PS, 2 ** 32, 2 ** 33 - PS, 2 ** 33, 2 ** 33 + 2 ** 31 + 5 * PS, 2 ** 34 + 7 * PS];
    spreadPages(small, file, { pageSize: PS, place: (k) => pageAt(at[k]!) });
    const reader = await Reader.open(file);
    try {
      const ptrs = Array.from({ length: N }, (_, i) => reader.heapRef(i, 0)!.ptr);
      expect(ptrs.filter((p) => p >= 2 ** 32 && p < 2 ** 33).length).toBeGreaterThan(0);
      expect(ptrs.filter((p) => p >= 2 ** 33).length).toBeGreaterThan(0);
      // The workers' view, straight: objects past 2^32 and 2^33 through the OS cache's windows.
      const heap = heapAccess({ kind: 'os' }, file, reader.pageSize);
      for (let i = 0; i < N; i++) {
        const ref = reader.heapRef(i, 0)!;
        expect(Buffer.compare(Buffer.from(heap.bytes(ref.ptr, ref.size)), Buffer.from(blobOf(i))), `sample ${i} at ${ref.ptr}`).toBe(0);
      }
    } finally {
      reader.close();
    }
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache, 1));
  });

  it('a page read asks fs.read for less than 2^31 bytes at a time, at u64 positions', async () => {
    const calls: Array<[number, number, number]> = [];
    const fake = {
      read: (_buf: Uint8Array, off: number, len: number, pos: number) => {
        calls.push([off, len, pos]);
        return Promise.resolve({ bytesRead: len, buffer: _buf });
      },
    } as unknown as FileHandle;
    // A 2^31-byte view of a lazily allocated buffer: nothing is touched by the fake read.
    await readPage(fake, new Uint8Array(new ArrayBuffer(2 ** 31)), 2 ** 33 + 2 ** 31);
    expect(calls).toEqual([
      [0, GiB, 2 ** 33 + 2 ** 31],
      [GiB, GiB, 2 ** 33 + 2 ** 31 + GiB],
    ]);
    expect(calls.every(([, len]) => len < 2 ** 31)).toBe(true);
  });
});

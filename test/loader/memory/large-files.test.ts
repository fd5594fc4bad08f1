/**
 * Files far larger than one ArrayBuffer (issue 19, items 1 and 2), in seconds: the pages of a
 * small file are moved past 2^32 and 2^33 bytes, or onto 2^31-byte pages, in sparse files
 * (test/helpers/sparse-beton.ts), and both memory managers must load every sample's bytes.
 * Before: the OS cache mapped the whole file into one ArrayBuffer ("[INTERNAL] Cannot create
 * a Buffer larger than 0x100000000 bytes"); the process cache asked fs.read for 2^31 bytes
 * (SIGABRT in fs.read) and viewed a pool above 4 GiB as one Uint8Array ("Invalid typed array
 * length", reported as OUT_OF_MEMORY "(0.0 GiB per batch)").
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../../core/fields/bytes-field.js';
import { IntField } from '../../../core/fields/int-field.js';
import type { LoaderError } from '../../../core/loader/errors.js';
import { Loader } from '../../../core/loader/loader.js';
import { heapAccess } from '../../../core/loader/memory/heap-access.js';
import { osCacheWindowBytes } from '../../../core/loader/memory/os-cache.js';
import { readPage } from '../../../core/loader/memory/file-fetch.js';
import type { FileHandle } from 'node:fs/promises';
import { Reader } from '../../../core/reader/reader.js';
import { DatasetWriter } from '../../../core/writer/dataset-writer.js';
import { spreadPages } from '../../helpers/sparse-beton.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GiB = 2 ** 30;
const PS = 2 ** 16;
const N = 24;
const BLOB = 20_000;
/** Sample i's bytes: a pattern no other sample has at any offset. */
const blobOf = (i: number): Uint8Array => Uint8Array.from({ length: BLOB }, (_, j) => (i * 37 + j * 11 + (j >> 8)) & 255);

let small: string;
beforeAll(async () => {
  small = join(dir, 'small.beton');
  // 20 kB blobs on 64 KiB pages: 3 samples a page, 8 pages.
  await new DatasetWriter(
    small,
    { blob: new BytesField(), label: new IntField() },
    { numWorkers: 0, pageSize: PS, allowSmallPages: true },
  ).write(Array.from({ length: N }, (_, i) => ({ blob: blobOf(i), label: 1000 + i })));
});

/** The new page index that puts a page at absolute byte `at` (data starts one page in: the metadata is tiny). */
const pageAt = (at: number, ps = PS): number => at / ps - 1;

async function loadAll(file: string, osCache: boolean): Promise<Map<number, { blob: Uint8Array; label: number }>> {
  const seen = new Map<number, { blob: Uint8Array; label: number }>();
  const loader = await Loader.open(file, { batchSize: 5, order: 'random', seed: 3, numWorkers: 2, dropLast: false, osCache });
  try {
    for await (const b of loader) {
      const blobs = b.get('blob').data as Uint8Array;
      const labels = b.get('label').data;
      b.sampleIds.forEach((id, k) => seen.set(id, { blob: blobs.slice(k * BLOB, (k + 1) * BLOB), label: Number(labels[k]) }));
    }
  } finally {
    await loader.close();
  }
  return seen;
}

function expectEverySample(seen: Map<number, { blob: Uint8Array; label: number }>): void {
  expect(seen.size).toBe(N);
  for (let i = 0; i < N; i++) {
    const s = seen.get(i)!;
    expect(s.label, `label of sample ${i}`).toBe(1000 + i);
    expect(Buffer.compare(Buffer.from(s.blob), Buffer.from(blobOf(i))), `bytes of sample ${i}`).toBe(0);
  }
}

describe('loading sparse files larger than 4 GiB', () => {
  it('a 4.5 GiB file (half its pages past 4 GiB) loads with the OS cache and the process cache', async () => {
    const file = join(dir, 'past-4g.beton');
    const size = spreadPages(small, file, { pageSize: PS, place: (k) => (k < 4 ? k : pageAt(4 * GiB + GiB / 2) + k) });
    expect(size).toBeGreaterThan(4.5 * GiB);
    expect(statSync(file).blocks * 512).toBeLessThan(64 * 2 ** 20); // sparse: nothing like 4.5 GiB on disk
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache));
  });

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
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache));
  });

  it('2^31-byte pages (the largest legal size) load with both managers; the process cache reads only what the pages hold', async () => {
    const file = join(dir, 'pages-2-31.beton');
    // Old pages 0..7 onto new pages 0, 2, 4, …: a 33 GiB sparse file of 2 GiB pages.
    const size = spreadPages(small, file, { pageSize: 2 ** 31, place: (k) => 2 * k });
    expect(size).toBeGreaterThan(32 * GiB);
    expect(osCacheWindowBytes(2 ** 31)).toBe(2 ** 31);
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache));
    const loader = await Loader.open(file, { batchSize: 4, numWorkers: 1, osCache: false, pipelines: { label: null } });
    try {
      for await (const _ of loader) void _;
      expect(loader.stats().pagesRead).toBe(8);
    } finally {
      await loader.close();
    }
  });

  it('a 128 GiB file of 512-byte pages: the OS cache loads it; the process cache refuses its 2^28-entry page table by name', async () => {
    const src = join(dir, 'tiny-pages.beton');
    await new DatasetWriter(
      src,
      { blob: new BytesField(), label: new IntField() },
      { numWorkers: 0, pageSize: 512, allowSmallPages: true },
    ).write(Array.from({ length: 6 }, (_, i) => ({ blob: blobOf(i).subarray(0, 300), label: 1000 + i })));
    const file = join(dir, 'tiny-pages-far.beton');
    const size = spreadPages(src, file, { pageSize: 512, place: (k) => (k < 3 ? k : 2 ** 28 + k) });
    expect(size).toBeGreaterThan(128 * GiB);
    const loader = await Loader.open(file, { batchSize: 6, numWorkers: 1, dropLast: false });
    try {
      for await (const b of loader) {
        const blobs = b.get('blob').data as Uint8Array;
        b.sampleIds.forEach((id, k) =>
          expect(Buffer.compare(Buffer.from(blobs.subarray(k * 300, (k + 1) * 300)), Buffer.from(blobOf(id).subarray(0, 300)))).toBe(0),
        );
      }
    } finally {
      await loader.close();
    }
    const err = await Loader.open(file, { batchSize: 6, numWorkers: 1, osCache: false }).catch((e: unknown) => e);
    expect((err as LoaderError).code).toBe('OUT_OF_MEMORY');
    expect((err as Error).message).toMatch(
      /indexes every page, and this file has \d+ pages of 512 bytes \(more than 268435456\); use the OS cache/,
    );
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

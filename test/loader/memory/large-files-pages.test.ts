/**
 * More files far larger than one ArrayBuffer (issue 19, items 1 and 2), the slow-tier half of
 * large-files.test.ts (test/tiers.ts): a 4.5 GiB file, 2^31-byte pages over 33 GiB and
 * 512-byte pages over 128 GiB, sparse (test/helpers/sparse-beton.ts), each loaded with both
 * memory managers and two workers (a loader start boots its workers, ~1.5 s each).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../../core/fields/bytes-field.js';
import { IntField } from '../../../core/fields/int-field.js';
import type { LoaderError } from '../../../core/loader/errors.js';
import { Loader } from '../../../core/loader/loader.js';
import { osCacheWindowBytes } from '../../../core/loader/memory/os-cache.js';
import { DatasetWriter } from '../../../core/writer/dataset-writer.js';
import { spreadPages } from '../../helpers/sparse-beton.js';
import { blobOf, expectEverySample, GiB, loadAll, PS, pageAt, writeSmall } from '../../helpers/sparse-samples.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-large-pages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let small: string;
beforeAll(async () => {
  small = await writeSmall(dir);
});

describe('loading sparse files larger than 4 GiB, large and tiny pages', () => {
  it('a 4.5 GiB file (half its pages past 4 GiB) loads with the OS cache and the process cache', async () => {
    const file = join(dir, 'past-4g.beton');
    const size = spreadPages(small, file, { pageSize: PS, place: (k) => (k < 4 ? k : pageAt(4 * GiB + GiB / 2) + k) });
    expect(size).toBeGreaterThan(4.5 * GiB);
    expect(statSync(file).blocks * 512).toBeLessThan(64 * 2 ** 20); // sparse: nothing like 4.5 GiB on disk
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache, 2));
  });

  it('2^31-byte pages (the largest legal size) load with both managers; the process cache reads only what the pages hold', async () => {
    const file = join(dir, 'pages-2-31.beton');
    // Old pages 0..7 onto new pages 0, 2, 4, …: a 33 GiB sparse file of 2 GiB pages.
    const size = spreadPages(small, file, { pageSize: 2 ** 31, place: (k) => 2 * k });
    expect(size).toBeGreaterThan(32 * GiB);
    expect(osCacheWindowBytes(2 ** 31)).toBe(2 ** 31);
    for (const osCache of [true, false]) expectEverySample(await loadAll(file, osCache, 2));
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
});

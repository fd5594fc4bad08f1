/**
 * The samples that test/loader/memory/large-files.test.ts and large-files-pages.test.ts move
 * far out into sparse files (sparse-beton.ts), and how both check that a loader reads every
 * sample's bytes back.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { Loader } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

export const GiB = 2 ** 30;
/** The small file's page size. */
export const PS = 2 ** 16;
export const N = 24;
const BLOB = 20_000;

/** Sample i's bytes: a pattern no other sample has at any offset. */
export const blobOf = (i: number): Uint8Array => Uint8Array.from({ length: BLOB }, (_, j) => (i * 37 + j * 11 + (j >> 8)) & 255);

/** Writes the small file: 20 kB blobs on 64 KiB pages, 3 samples a page, 8 pages. */
export async function writeSmall(dir: string): Promise<string> {
  const small = join(dir, 'small.beton');
  await new DatasetWriter(
    small,
    { blob: new BytesField(), label: new IntField() },
    { numWorkers: 0, pageSize: PS, allowSmallPages: true },
  ).write(Array.from({ length: N }, (_, i) => ({ blob: blobOf(i), label: 1000 + i })));
  return small;
}

/** The new page index that puts a page at absolute byte `at` (data starts one page in: the metadata is tiny). */
export const pageAt = (at: number, ps = PS): number => at / ps - 1;

type Seen = Map<number, { blob: Uint8Array; label: number }>;

/** Every sample of one random epoch, by id. */
export async function loadAll(file: string, osCache: boolean, numWorkers: number): Promise<Seen> {
  const seen: Seen = new Map();
  const loader = await Loader.open(file, { batchSize: 5, order: 'random', seed: 3, numWorkers, dropLast: false, osCache });
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

export function expectEverySample(seen: Seen): void {
  expect(seen.size).toBe(N);
  for (let i = 0; i < N; i++) {
    const s = seen.get(i)!;
    expect(s.label, `label of sample ${i}`).toBe(1000 + i);
    expect(Buffer.compare(Buffer.from(s.blob), Buffer.from(blobOf(i))), `bytes of sample ${i}`).toBe(0);
  }
}

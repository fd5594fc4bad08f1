/**
 * The small .beton files and helpers that test/loader/loader.test.ts (the fast tier) and
 * test/loader/loader-variants.test.ts (its slow-tier variants) both read: written once per
 * file by each, with the DatasetWriter's inline path (no encode workers to start).
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import type { Batch } from '../../core/loader/batch.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

/** A w × h RGB image with every byte `v`. */
export const constant = (v: number, w: number, h: number): { data: Uint8Array; width: number; height: number } => ({
  data: new Uint8Array(w * h * 3).fill(v),
  width: w,
  height: h,
});

/** Samples in fixedImages(): sample i is the constant image i mod 255 with label i. */
export const FIXED_SAMPLES = 600;

/** 600 constant 25 × 20 images (value i mod 255, label i), half raw and half JPEG q95, on small pages: several samples per page. */
export async function fixedImages(dir: string): Promise<string> {
  const path = join(dir, 'fixed.beton');
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'proportion', jpegQuality: 95 }), label: new IntField() },
    { numWorkers: 0, pageSize: 16384, allowSmallPages: true },
  ).write(Array.from({ length: FIXED_SAMPLES }, (_, i) => ({ image: constant(i % 255, 25, 20), label: i })));
  return path;
}

/** `count` constant images of sizes from 300 to 499 px a side (label i): the simple decoder refuses them. */
export async function variableImages(dir: string, count: number): Promise<string> {
  const path = join(dir, 'variable.beton');
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'proportion', jpegQuality: 95 }), label: new IntField() },
    { numWorkers: 0 },
  ).write(
    Array.from({ length: count }, (_, i) => ({ image: constant(i % 255, 300 + ((i * 37) % 200), 300 + ((i * 53) % 200)), label: i })),
  );
  return path;
}

/** Every batch of one epoch (cloned: a batch's slot is reused), the loader closed after. */
export async function collect(path: string, opts: LoaderOptions): Promise<Batch[]> {
  const loader = await Loader.open(path, opts);
  try {
    return await epochOf(loader);
  } finally {
    await loader.close();
  }
}

/** Every batch of the loader's next epoch, cloned. */
export async function epochOf(loader: Loader): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of loader) out.push(b.clone());
  return out;
}

/** Row r of an image output, as bytes. */
export const imageRow = (b: Batch, r: number, name = 'image'): Uint8Array => {
  const o = b.get(name);
  const row = o.shape.slice(1).reduce((x, y) => x * y, 1);
  return (o.data as Uint8Array).subarray(r * row, (r + 1) * row);
};

/** Checks that batches of fixedImages() hold each sample's constant image and label; returns the rows seen. */
export function expectConstantImages(batches: Batch[]): number {
  let rows = 0;
  for (const b of batches) {
    expect(b.get('image').shape.slice(1)).toEqual([20, 25, 3]);
    for (let r = 0; r < b.size; r++) {
      const id = b.sampleIds[r]!;
      expect(b.get('label').data[r]).toBe(BigInt(id));
      expect(
        imageRow(b, r).every((v) => v === id % 255),
        `sample ${id}`,
      ).toBe(true);
      rows++;
    }
  }
  return rows;
}

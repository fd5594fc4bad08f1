/**
 * The small .beton files and helpers that test/loader/loader.test.ts (the fast tier) and
 * test/loader/loader-variants.test.ts (its slow-tier variants) both read: written once per
 * file by each, with the DatasetWriter's inline path (no encode workers to start).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import type { Batch } from '../../core/loader/batch.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { cropResizeRGB } from '../../core/native/area-resize.js';
import { Custom, IntDecoder, LabelMixup, RandomTranslate, ReplaceLabel } from '../../core/pipeline/spec.js';
import { Reader } from '../../core/reader/reader.js';
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

/**
 * A textured 400 × 320 JPEG (one sample) and what FFCV's CenterCrop(64) gives for it: the whole
 * image decoded at full scale, then INTER_AREA on the centre crop. CenterCrop(64) of its 280-px
 * square allows a 1/4 DCT scale, so fastDecode gives other pixels.
 */
export async function texturedJpeg(dir: string): Promise<{ path: string; want: Uint8Array }> {
  const w = 400;
  const h = 320;
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++)
      data.set([(x * 3 + y) & 255, 128 + 100 * Math.sin(x / 9) * Math.cos(y / 13), ((x ^ y) & 16) * 8 + ((x * y) % 23)], (y * w + x) * 3);
  }
  const path = join(dir, 'texture.beton');
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'jpg', jpegQuality: 90 }), label: new IntField() },
    { numWorkers: 0 },
  ).write([{ image: { data, width: w, height: h }, label: 0 }]);
  const reader = await Reader.open(path);
  const ref = reader.read(0).image as { data: Uint8Array };
  reader.close();
  const c = Math.trunc((224 / 256) * 320);
  return { path, want: cropResizeRGB(ref.data, w, h, { x: (w - c) >> 1, y: (h - c) >> 1, w: c, h: c }, 64, 64) };
}

/** `count` constant 16 × 16 JPEGs (value and label i) with sample `bad`'s JPEG header smashed after SOI. */
export async function corruptJpegs(path: string, count: number, bad: number): Promise<string> {
  await new DatasetWriter(path, { image: new RGBImageField({ writeMode: 'jpg' }), label: new IntField() }, { numWorkers: 0 }).write(
    Array.from({ length: count }, (_, i) => ({ image: constant(i, 16, 16), label: i })),
  );
  const r = await Reader.open(path);
  const ref = r.heapRef(bad, 0)!;
  r.close();
  const bytes = readFileSync(path);
  bytes.fill(0x55, ref.ptr + 2, ref.ptr + 40);
  writeFileSync(path, bytes);
  return path;
}

/** The error one epoch of the loader ends with (undefined if none). */
export async function epochError(loader: Loader): Promise<unknown> {
  try {
    for await (const _ of loader) void _;
  } catch (e) {
    return e;
  }
  return undefined;
}

/**
 * Four constant 8 × 8 images of 100 through RandomTranslate(2) and a doubling custom op, labels
 * through ReplaceLabel([1], 9) and LabelMixup(0.5), seed 2: checks the batch against the values
 * worked out by hand.
 */
export async function expectTranslateAndMixup(dir: string, numWorkers: number): Promise<void> {
  const p = join(dir, `ones-${numWorkers}.beton`);
  await new DatasetWriter(p, { image: new RGBImageField(), label: new IntField() }, { numWorkers: 0 }).write(
    Array.from({ length: 4 }, (_, i) => ({ image: constant(100, 8, 8), label: i })),
  );
  const double = Custom('double', (src, dst) => {
    for (let i = 0; i < src.length; i++) dst[i] = Math.min(255, src[i]! * 2);
  });
  const [b] = await collect(p, {
    batchSize: 4,
    numWorkers,
    seed: 2,
    pipelines: { image: [RandomTranslate(2), double], label: [IntDecoder(), ReplaceLabel([1], 9), LabelMixup(0.5)] },
  });
  const img = b!.get('image').data as Uint8Array;
  // Every pixel is 200 (doubled) or 0 (translated-in border).
  expect(img.every((v) => v === 200 || v === 0)).toBe(true);
  const lab = b!.get('label');
  expect(lab.shape).toEqual([4, 3]);
  const rows = Array.from({ length: 4 }, (_, i) => Array.from((lab.data as Float32Array).subarray(i * 3, i * 3 + 3)));
  expect(rows.map((r) => r[0])).toEqual([0, 9, 2, 3]);
  expect(rows.map((r) => r[1])).toEqual([3, 0, 9, 2]);
  expect(rows.every((r) => r[2]! >= 0 && r[2]! <= 1 && r[2] === rows[0]![2])).toBe(true);
}

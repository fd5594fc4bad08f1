import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { LoaderError } from '../../core/loader/errors.js';
import { batchesPerEpoch } from '../../core/loader/drop-last.js';
import { Loader } from '../../core/loader/loader.js';
import { Reader } from '../../core/reader/reader.js';
import {
  CenterCropRGBImageDecoder,
  Cutout,
  IntDecoder,
  NormalizeImage,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  ToCHW,
  Custom,
} from '../../core/pipeline/spec.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import {
  collect,
  corruptJpegs,
  epochError,
  epochOf,
  expectConstantImages,
  expectTranslateAndMixup,
  FIXED_SAMPLES,
  fixedImages,
  texturedJpeg,
  variableImages,
} from '../helpers/loader-datasets.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each Loader.open boots its worker threads (~1.5 s each on a quiet machine, far more than
// any check here): the cases share loaders where they read the same thing, and the variants
// of a case (every cache, worker count, rank) are in loader-variants.test.ts, the slow tier.
let fixed: string;
let variable: string;
let scalars: string;
beforeAll(async () => {
  fixed = await fixedImages(dir);
  variable = await variableImages(dir, 24);
  scalars = join(dir, 'scalars.beton');
  await new DatasetWriter(
    scalars,
    {
      i: new IntField(),
      f: new FloatField(),
      a: new NDArrayField({ dtype: 'float32', shape: [2, 3] }),
      b: new BytesField(),
      j: new JSONField(),
    },
    { numWorkers: 0 },
  ).write(
    Array.from({ length: 30 }, (_, i) => ({
      i: i - 10,
      f: i / 4,
      a: Float32Array.from({ length: 6 }, (_, k) => i * 10 + k),
      b: new Uint8Array(i % 7).fill(i),
      j: { i },
    })),
  );
});

describe('loader: decoding and order', () => {
  it('constant raw and JPEG q95 images decode exactly (OS cache; 2 workers and the process cache in loader-variants)', async () => {
    const l = await Loader.open(fixed, { batchSize: 7, numWorkers: 1, dropLast: false });
    try {
      expect(l.length).toBe(86);
      const batches = await epochOf(l);
      expect(expectConstantImages(batches)).toBe(FIXED_SAMPLES);
      expect(batches[0]!.sampleIds).toEqual(Uint32Array.from([0, 1, 2, 3, 4, 5, 6]));
      // dropLast false keeps the last partial batch: 600 = 85 × 7 + 5.
      expect(batches.map((x) => x.size).filter((s) => s !== 7)).toEqual([5]);
    } finally {
      await l.close();
    }
  });

  it('length follows drop_last (600 samples: bs 7 → 85 / 86, bs 60 → 10 / 10)', () => {
    // The loader's length is batchesPerEpoch of its epoch (the loaders above and the filtered
    // loader below check it end to end, with dropLast false and true).
    for (const [bs, dropLast, len] of [
      [7, true, 85],
      [7, false, 86],
      [60, true, 10],
      [60, false, 10],
    ] as const)
      expect(batchesPerEpoch(FIXED_SAMPLES, bs, dropLast)).toBe(len);
  });

  it('random order reproduces numpy default_rng(seed + epoch).permutation', async () => {
    const small = join(dir, 'ten.beton');
    await new DatasetWriter(small, { k: new IntField() }, { numWorkers: 0 }).write(Array.from({ length: 10 }, (_, i) => ({ k: i })));
    const l = await Loader.open(small, { batchSize: 10, order: 'random', seed: 17, numWorkers: 1 });
    const epochs: number[][] = [];
    for (let e = 0; e < 2; e++) for await (const b of l) epochs.push(Array.from(b.sampleIds));
    await l.close();
    expect(epochs[0]!.slice(0, 3)).toEqual([4, 0, 1]);
    expect(epochs[1]!.slice(0, 3)).toEqual([2, 8, 4]);
  });

  it('batches are identical with 1 worker and OS cache, and 2 workers and process cache; resume mid-epoch yields exactly the remaining batches', async () => {
    const pipelines = { image: [RandomResizedCropRGBImageDecoder(16), RandomHorizontalFlip(), Cutout(4), ToCHW()], label: [IntDecoder()] };
    const base = { batchSize: 8, order: 'quasi_random' as const, seed: 5, pipelines };
    const [one, two] = await Promise.all([
      Loader.open(variable, { ...base, numWorkers: 1 }),
      Loader.open(variable, { ...base, numWorkers: 2, osCache: false }),
    ]);
    try {
      const full = await epochOf(one);
      expect(full.length).toBe(3);
      expect(full[0]!.get('image').shape).toEqual([8, 3, 16, 16]);
      const other = await epochOf(two);
      expect(other.length).toBe(3);
      other.forEach((x, i) => {
        expect(x.sampleIds).toEqual(full[i]!.sampleIds);
        expect(x.get('image').data).toEqual(full[i]!.get('image').data);
      });
      // Break out after batch 0 of the next epoch; the state, through JSON, resumes on the other loader.
      for await (const b of two) if (b.index === 0) break;
      const state = two.state();
      expect(state).toMatchObject({ epoch: 1, batch: 1, seed: 5, loader: { batchSize: 8, order: 'quasi_random', seed: 5 } });
      const again = await epochOf(one); // epoch 1 whole, for reference
      one.resume(JSON.parse(JSON.stringify(state)));
      const rest = await epochOf(one);
      expect(one.epoch).toBe(2);
      expect(rest.map((b) => b.index)).toEqual([1, 2]);
      rest.forEach((b, i) => {
        expect(b.sampleIds).toEqual(again[1 + i]!.sampleIds);
        expect(b.get('image').data).toEqual(again[1 + i]!.get('image').data);
      });
      // Epoch 1 is another permutation than epoch 0 (the resumed batches are not epoch 0's).
      expect(again.map((b) => [...b.sampleIds].join())).not.toEqual(full.map((b) => [...b.sampleIds].join()));
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('loader: filter', () => {
  it('keeps the samples whose row satisfies the condition, by sample id, with indices (distributed ranks: loader-variants); names a missing output', async () => {
    // Labels equal sample ids here. The pass applies the output's pipeline: the condition sees
    // the label after a custom op (as FFCV's test filters values its pipeline doubled).
    const doubled = Custom('double', (src, dst) => {
      (dst as unknown as BigInt64Array)[0] = (src as unknown as BigInt64Array)[0]! * 2n;
    });
    const indices = Array.from({ length: 300 }, (_, k) => 599 - 2 * k); // odd ids, descending: ids ≠ positions
    const base = await Loader.open(fixed, {
      batchSize: 8,
      numWorkers: 1,
      order: 'random',
      seed: 5,
      indices,
      pipelines: { image: null, label: [IntDecoder(), doubled] },
    });
    const seen: number[] = [];
    const filtered = await base.filter('label', (row, id) => {
      seen.push(id);
      return Number((row as BigInt64Array)[0]) % 3 === 0;
    });
    try {
      expect(seen).toEqual(indices); // one sequential pass over the indices, every batch kept
      const want = indices.filter((id) => (2 * id) % 3 === 0);
      expect(filtered.length).toBe(Math.floor(want.length / 8)); // drop_last kept (the default)
      expect(filtered.seed).toBe(base.seed);
      const got: number[] = [];
      for await (const b of filtered) {
        expect(b.size).toBe(8);
        expect(Object.keys(b.outputs)).toEqual(['label']); // image: null is no output at all
        const labels = b.get('label').data as BigInt64Array;
        b.sampleIds.forEach((id, j) => {
          expect(Number(labels[j])).toBe(2 * id);
          got.push(id);
        });
      }
      expect(new Set(got).size).toBe(got.length);
      for (const id of got) expect(want).toContain(id);
      expect(got.length).toBe(filtered.length * 8);

      // Refusals before any pass, on the same loader (an empty result and a condition that
      // throws, each a pass: loader-variants).
      await expect(base.filter('nope', () => true)).rejects.toThrow(/no output "nope"/);
      await expect(base.filter('label', 'x > 1' as unknown as () => boolean)).rejects.toThrow(/condition must be a function/);
    } finally {
      await filtered.close();
      await base.close();
    }
  });
});

describe('loader: decoders and transforms against hand-computed results', () => {
  it('int, float, ndarray, bytes and json decoders', async () => {
    const [b] = await collect(scalars, { batchSize: 30, numWorkers: 1 });
    const r = await Reader.open(scalars);
    expect(Array.from(b!.get('i').data as BigInt64Array)).toEqual(Array.from({ length: 30 }, (_, i) => BigInt(i - 10)));
    expect(Array.from(b!.get('f').data as Float64Array)).toEqual(Array.from({ length: 30 }, (_, i) => i / 4));
    expect(b!.get('a').shape).toEqual([30, 2, 3]);
    expect(Array.from((b!.get('a').data as Float32Array).subarray(6 * 7, 6 * 8))).toEqual([70, 71, 72, 73, 74, 75]);
    const bytes = b!.get('b');
    expect(bytes.shape).toEqual([30, 6]);
    expect(Array.from((bytes.data as Uint8Array).subarray(6 * 9, 6 * 10))).toEqual([9, 9, 0, 0, 0, 0]);
    const j = b!.get('j');
    const row = (j.data as Uint8Array).subarray(13 * j.shape[1]!, 14 * j.shape[1]!);
    expect(JSON.parse(new TextDecoder().decode(row.subarray(0, row.indexOf(0))))).toEqual({ i: 13 });
    r.close();
  });

  it('simple decoder refuses variable-size images', async () => {
    await expect(Loader.open(variable, { batchSize: 4 })).rejects.toThrow(/one size.*RandomResizedCrop/);
  });

  it('center crop, flip, normalize and ToCHW on a gradient', async () => {
    // 6x4 image, pixel (y, x) = [10x, 20y, 7]: easy to follow through the ops.
    const w = 6;
    const h = 4;
    const data = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([10 * x, 20 * y, 7], (y * w + x) * 3);
    const p = join(dir, 'grad.beton');
    await new DatasetWriter(p, { image: new RGBImageField(), label: new IntField() }, { numWorkers: 0 }).write([
      { image: { data, width: w, height: h }, label: 3 },
    ]);
    // Centre crop with ratio 1: c = 4, rows 0..3, columns 1..4; output 4x4 is a copy.
    const [b] = await collect(p, {
      batchSize: 1,
      numWorkers: 1,
      pipelines: {
        image: [CenterCropRGBImageDecoder(4, 1), RandomHorizontalFlip(1), NormalizeImage([5, 10, 7], [5, 10, 1], 'float32'), ToCHW()],
      },
    });
    const out = b!.get('image');
    expect(out.shape).toEqual([1, 3, 4, 4]);
    const d = out.data as Float32Array;
    // Flipped: output x = 0 is source column 4 (R = 40 → (40-5)/5 = 7); channel planes follow.
    expect(d[0]).toBe(7);
    expect(d[3]).toBe((10 - 5) / 5);
    expect(d[16 + 4 * 2]).toBe((40 - 10) / 10);
    expect(d[32]).toBe(0);
  });

  it('crop decoders give full-scale-decode pixels by default; fastDecode (reduced DCT scale) reaches the workers', async () => {
    const { path: p, want } = await texturedJpeg(dir);
    const load = async (fastDecode?: boolean): Promise<Uint8Array> => {
      const [b] = await collect(p, {
        batchSize: 1,
        numWorkers: 1,
        ...(fastDecode === undefined ? {} : { fastDecode }),
        pipelines: { image: [CenterCropRGBImageDecoder(64)] },
      });
      return b!.get('image').data as Uint8Array;
    };
    // want: FFCV's decoder, the whole image at full scale (fast IDCT), then INTER_AREA on the crop.
    const exact = await load();
    expect(Buffer.from(exact).equals(Buffer.from(want))).toBe(true);
    // (fastDecode: false, the same as the default: loader-variants.test.ts.)
    const fast = await load(true);
    let sum = 0;
    for (let i = 0; i < fast.length; i++) sum += Math.abs(fast[i]! - exact[i]!);
    expect(sum).toBeGreaterThan(0); // a different decode happened in the workers
    expect(sum / fast.length).toBeLessThan(8); // of the same picture
  });

  it('translate, replace label, label mixup and a custom op (1 worker; 2 in loader-variants)', async () => {
    await expectTranslateAndMixup(dir, 1);
  });
});

describe('loader: failures', () => {
  it('a corrupt sample raises CORRUPT_SAMPLE naming it and the file field the failing output reads, and the workers shut down', async () => {
    // image is field 0, label field 1; outputs are [label, thumb]: the failing output is
    // index 1, an extra output named thumb, reading field 0. Only "image" is right. (The
    // default image pipeline and the process cache: loader-variants.test.ts.)
    const p = await corruptJpegs(join(dir, 'corrupt.beton'), 20, 13);
    const l = await Loader.open(p, {
      batchSize: 4,
      numWorkers: 1,
      pipelines: { image: null, label: [IntDecoder()], thumb: { source: 'image', steps: [CenterCropRGBImageDecoder([8, 8], 1)] } },
    });
    const err = await epochError(l);
    expect(err).toBeInstanceOf(LoaderError);
    expect((err as LoaderError).code).toBe('CORRUPT_SAMPLE');
    expect((err as LoaderError).details).toMatchObject({ sample: 13, batch: 3, field: 'image' });
    expect((err as Error).message).toContain('sample 13');
    // Closed: a new iteration fails at once instead of hanging.
    await expect(l[Symbol.asyncIterator]().next()).rejects.toThrow();
  });

  it('bad options are named errors', async () => {
    await expect(Loader.open(fixed, { batchSize: 0 })).rejects.toThrow(/batchSize/);
    await expect(Loader.open(fixed, { batchSize: 4, indices: [700] })).rejects.toThrow(/indices contains 700/);
    await expect(Loader.open(fixed, { batchSize: 4, pipelines: { extra: [IntDecoder()] } })).rejects.toThrow(/not a field/);
  });
});

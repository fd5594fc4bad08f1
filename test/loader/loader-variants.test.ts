/**
 * The slow-tier variants of test/loader/loader.test.ts's cases (test/tiers.ts): each one opens
 * a loader per cache, worker count, rank or explicit option, and every loader boots its worker
 * threads (~1.5 s each on a quiet machine). The fast file keeps one representative of each
 * behaviour; these are the cases as they were before it was slimmed (issue 32).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Batch } from '../../core/loader/batch.js';
import { LoaderError } from '../../core/loader/errors.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import {
  CenterCropRGBImageDecoder,
  Cutout,
  IntDecoder,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  ToCHW,
} from '../../core/pipeline/spec.js';
import {
  collect,
  corruptJpegs,
  epochError,
  expectConstantImages,
  expectTranslateAndMixup,
  fixedImages,
  texturedJpeg,
  variableImages,
} from '../helpers/loader-datasets.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-loader-variants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fixed: string;
let variable: string;
beforeAll(async () => {
  fixed = await fixedImages(dir);
  variable = await variableImages(dir, 40);
});

describe('loader variants: decoding and order', () => {
  it.each([true, false])('constant raw and JPEG q95 images decode exactly (osCache %s)', async (osCache) => {
    const batches = await collect(fixed, { batchSize: 64, numWorkers: 2, osCache, dropLast: false });
    expect(expectConstantImages(batches)).toBe(600);
    expect(batches[0]!.sampleIds.slice(0, 8)).toEqual(Uint32Array.from([0, 1, 2, 3, 4, 5, 6, 7]));
  });

  it('length follows drop_last (600 samples: bs 7 → 85 / 86, bs 60 → 10 / 10)', async () => {
    for (const [bs, dropLast, len] of [
      [7, true, 85],
      [7, false, 86],
      [60, true, 10],
      [60, false, 10],
    ] as const) {
      const l = await Loader.open(fixed, { batchSize: bs, dropLast, numWorkers: 1 });
      expect(l.length).toBe(len);
      await l.close();
    }
    const b = await collect(fixed, { batchSize: 7, dropLast: false, numWorkers: 1, pipelines: { image: null } });
    expect(b.map((x) => x.size).filter((s) => s !== 7)).toEqual([5]);
    expect(Object.keys(b[0]!.outputs)).toEqual(['label']);
  });

  it('batches are identical with 1 and 2 workers, and with os and process cache', async () => {
    const pipelines = { image: [RandomResizedCropRGBImageDecoder(16), RandomHorizontalFlip(), Cutout(4), ToCHW()], label: [IntDecoder()] };
    const base = { batchSize: 8, order: 'quasi_random' as const, seed: 5, pipelines };
    const a = await collect(variable, { ...base, numWorkers: 1 });
    const b = await collect(variable, { ...base, numWorkers: 2 });
    const c = await collect(variable, { ...base, numWorkers: 2, osCache: false });
    expect(a.length).toBe(5);
    for (const other of [b, c]) {
      other.forEach((x, i) => {
        expect(x.sampleIds).toEqual(a[i]!.sampleIds);
        expect(x.get('image').data).toEqual(a[i]!.get('image').data);
      });
    }
    expect(a[0]!.get('image').shape).toEqual([8, 3, 16, 16]);
  });

  it('resume mid-epoch on a fresh loader yields exactly the remaining batches', async () => {
    const opts: LoaderOptions = {
      batchSize: 50,
      order: 'random',
      seed: 11,
      numWorkers: 2,
      pipelines: { image: [RandomResizedCropRGBImageDecoder(8), RandomHorizontalFlip()] },
    };
    const full = await collect(fixed, opts);
    const l = await Loader.open(fixed, opts);
    for await (const b of l) if (b.index === 4) break;
    const state = l.state();
    await l.close();
    expect(state).toMatchObject({ epoch: 0, batch: 5, seed: 11, loader: { batchSize: 50, order: 'random', seed: 11 } });
    const l2 = await Loader.open(fixed, opts);
    l2.resume(JSON.parse(JSON.stringify(state)));
    const rest: Batch[] = [];
    for await (const b of l2) rest.push(b.clone());
    expect(l2.epoch).toBe(1);
    await l2.close();
    expect(rest.map((b) => b.index)).toEqual(full.slice(5).map((b) => b.index));
    rest.forEach((b, i) => expect(b.get('image').data).toEqual(full[5 + i]!.get('image').data));
  });

  it('distributed ranks are disjoint and cover the data', async () => {
    const ids: number[][] = [];
    for (let rank = 0; rank < 3; rank++) {
      const b = await collect(fixed, {
        batchSize: 10,
        dropLast: false,
        order: 'random',
        seed: 1,
        distributed: { rank, worldSize: 3 },
        numWorkers: 1,
        pipelines: { image: null },
      });
      ids.push(b.flatMap((x) => Array.from(x.sampleIds)));
    }
    expect(ids.map((x) => x.length)).toEqual([200, 200, 200]);
    expect(new Set(ids.flat()).size).toBe(600);
  });
});

describe('loader variants: filter', () => {
  it('distributed: each rank filters the whole set, then the kept ids are split between ranks', async () => {
    const ranks: number[][] = [];
    for (let rank = 0; rank < 2; rank++) {
      const l = await Loader.open(fixed, {
        batchSize: 5,
        dropLast: false,
        numWorkers: 1,
        order: 'random',
        seed: 2,
        distributed: { rank, worldSize: 2 },
        pipelines: { image: null },
      });
      const f = await l.filter('label', (row) => (row as BigInt64Array)[0]! < 100n);
      const ids: number[] = [];
      for await (const b of f) ids.push(...b.sampleIds);
      ranks.push(ids);
      await f.close();
      await l.close();
    }
    expect(ranks[0]!.length).toBe(50);
    expect(ranks[1]!.length).toBe(50);
    expect(new Set(ranks.flat())).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));
  });

  it('names an empty result', async () => {
    const l = await Loader.open(fixed, { batchSize: 8, numWorkers: 1, pipelines: { image: null } });
    try {
      await expect(l.filter('label', () => false)).rejects.toThrow(/no sample .* satisfies/);
    } finally {
      await l.close();
    }
  });

  it('a condition that throws: the error comes back and the pass is closed (this loader still works)', async () => {
    const l = await Loader.open(fixed, { batchSize: 8, numWorkers: 1, pipelines: { image: null } });
    try {
      await expect(
        l.filter('label', () => {
          throw new Error('bad condition');
        }),
      ).rejects.toThrow('bad condition');
      let batches = 0;
      for await (const _ of l) batches++;
      expect(batches).toBe(l.length);
    } finally {
      await l.close();
    }
  });
});

describe('loader variants: decoders', () => {
  it('fastDecode: false gives the full-scale-decode pixels, as the default does', async () => {
    // As loader.test.ts's crop decoder case.
    const { path: p, want } = await texturedJpeg(dir);
    const [b] = await collect(p, { batchSize: 1, numWorkers: 1, fastDecode: false, pipelines: { image: [CenterCropRGBImageDecoder(64)] } });
    expect(Buffer.from(b!.get('image').data as Uint8Array).equals(Buffer.from(want))).toBe(true);
  });

  it('translate, replace label, label mixup and a custom op, on 2 workers', async () => {
    await expectTranslateAndMixup(dir, 2);
  });
});

describe('loader variants: failures', () => {
  it('a corrupt sample raises CORRUPT_SAMPLE naming it (default image pipeline), and the workers shut down', async () => {
    const p = await corruptJpegs(join(dir, 'corrupt.beton'), 20, 13);
    const l = await Loader.open(p, { batchSize: 4, numWorkers: 2 });
    const err = await epochError(l);
    expect(err).toBeInstanceOf(LoaderError);
    expect((err as LoaderError).code).toBe('CORRUPT_SAMPLE');
    expect((err as LoaderError).details.sample).toBe(13);
    expect((err as Error).message).toContain('sample 13');
    // Closed: a new iteration fails at once instead of hanging.
    await expect(l[Symbol.asyncIterator]().next()).rejects.toThrow();
  });

  it.each([true, false])('CORRUPT_SAMPLE names the file field the failing output reads (osCache %s)', async (osCache) => {
    // image is field 0, label field 1; outputs are [label, thumb]: the failing output is
    // index 1, an extra output named thumb, reading field 0. Only "image" is right.
    const p = await corruptJpegs(join(dir, `corrupt-extra-${osCache}.beton`), 12, 5);
    const l = await Loader.open(p, {
      batchSize: 4,
      numWorkers: 1,
      osCache,
      pipelines: { image: null, label: [IntDecoder()], thumb: { source: 'image', steps: [CenterCropRGBImageDecoder([8, 8], 1)] } },
    });
    const err = await epochError(l);
    await l.close();
    expect((err as LoaderError).code).toBe('CORRUPT_SAMPLE');
    expect((err as LoaderError).details).toMatchObject({ sample: 5, batch: 1, field: 'image' });
  });
});

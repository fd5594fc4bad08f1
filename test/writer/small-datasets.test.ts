// Issue 12 item 7: defaults fit small datasets, never a silent zero. bench-loader and profile
// cap the default batch (256) at the dataset's size and say so on stderr; a batch larger
// than the file given explicitly fails naming the flag. Crops of tiny images are at least one
// pixel (FFCV fails there), and equal FFCV's everywhere FFCV succeeds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Loader } from '../../core/loader/loader.js';
import { centerCrop, randomResizedCrop, roundHalfEven, type Crop } from '../../core/pipeline/crop.js';
import { rngFor, type Rng } from '../../core/pipeline/rng.js';
import { CenterCropRGBImageDecoder, RandomResizedCropRGBImageDecoder } from '../../core/pipeline/spec.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { SAMPLE_IMAGES, STACK_LINE, writeImageBeton } from '../helpers/cli-inputs.js';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-small-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => join(dir, name);

beforeAll(async () => {
  await writeImageBeton(p('forty.beton'), 40);
  const demo = cli(['build', SAMPLE_IMAGES, '-o', p('demo.beton'), '--workers', '1']);
  expect(demo.status, demo.stderr).toBe(0);
});

describe('bench-loader and profile on datasets smaller than the default batch', () => {
  it('bench-loader on 40 samples: batches of 40, said on stderr, images/s above 0', () => {
    const r = cli(['bench-loader', p('forty.beton'), '--workers', '1', '--epochs', '2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/has 40 samples, fewer than the default batch of 256: using batches of 40 \(--batch-size to choose\)/);
    const res = JSON.parse(r.stdout) as { median_img_per_s: number; config: { batchSize: number }; epochs: number[] };
    expect(res.config.batchSize).toBe(40);
    expect(res.median_img_per_s).toBeGreaterThan(0);
    expect(Math.min(...res.epochs)).toBeGreaterThan(0);
  });

  it("bench-loader and profile on the demo's own 48-image dataset work with their defaults", () => {
    const b = cli(['bench-loader', p('demo.beton'), '--workers', '1', '--epochs', '2']);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/batch 48,/);
    expect(b.stdout).not.toMatch(/median 0 img\/s/);
    const pr = cli(['profile', p('demo.beton'), '--workers', '1', '--seconds', '0.5', '--db', p('runs.sqlite'), '--no-gpu', '--json']);
    expect(pr.status, pr.stderr).toBe(0);
    expect(pr.stderr).toMatch(/using batches of 48 \(--batch-sizes to choose\)/);
    expect(pr.stderr).not.toMatch(STACK_LINE);
    const run = JSON.parse(pr.stdout) as { plan: { batchSizes: number[] }; points: Array<{ imagesPerSec: number }> };
    expect(run.plan.batchSizes).toEqual([48]);
    expect(run.points[0]!.imagesPerSec).toBeGreaterThan(0);
  });

  it('an explicit batch larger than the file fails with the flag to pass, exit 1', () => {
    const b = cli(['bench-loader', p('forty.beton'), '--batch-size', '64', '--workers', '1']);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/error \[TOO_FEW_SAMPLES\]: .*40 samples, fewer than one batch of 64/);
    expect(b.stderr).toMatch(/Pass --batch-size 40 or less/);
    expect(b.stdout).toBe('');
  });
});

/** FFCV's crop arithmetic without the one-pixel floor (ffcv/transforms/utils + fast_crop), for comparison. */
function ffcvCenter(h: number, w: number, ratio: number): Crop {
  const c = Math.trunc(ratio * Math.min(h, w));
  return { y: Math.floor((h - c) / 2), x: Math.floor((w - c) / 2), h: c, w: c };
}
function ffcvRrc(h: number, w: number, scale: readonly [number, number], ratio: readonly [number, number], rng: Rng): Crop {
  const area = h * w;
  for (let t = 0; t < 10; t++) {
    const target = area * rng.uniform(scale[0], scale[1]);
    const ar = Math.exp(rng.uniform(Math.log(ratio[0]), Math.log(ratio[1])));
    const cw = roundHalfEven(Math.sqrt(target * ar));
    const ch = roundHalfEven(Math.sqrt(target / ar));
    if (cw > 0 && cw <= w && ch > 0 && ch <= h)
      return { y: Math.trunc(rng.uniform(0, h - ch + 1)), x: Math.trunc(rng.uniform(0, w - cw + 1)), h: ch, w: cw };
  }
  const inRatio = w / h;
  let cw = w;
  let ch = h;
  if (inRatio < Math.min(...ratio)) ch = roundHalfEven(cw / Math.min(...ratio));
  else if (inRatio > Math.max(...ratio)) cw = roundHalfEven(ch * Math.max(...ratio));
  return { y: Math.floor((h - ch) / 2), x: Math.floor((w - cw) / 2), h: ch, w: cw };
}

describe('crops of tiny images', () => {
  it('a 1×1 image: centre crop and the RRC fallback give one pixel (FFCV: an empty crop)', () => {
    expect(ffcvCenter(1, 1, 224 / 256).w).toBe(0);
    expect(centerCrop(1, 1, 224 / 256)).toEqual({ y: 0, x: 0, h: 1, w: 1 });
    expect(centerCrop(1, 7, 224 / 256)).toEqual({ y: 0, x: 3, h: 1, w: 1 });
    // Ratios a 1×1 image cannot meet: the fallback rounds a side to 0.
    expect(ffcvRrc(1, 1, [0.08, 1], [3, 4], rngFor(0, 0, 0)).h).toBe(0);
    expect(randomResizedCrop(1, 1, [0.08, 1], [3, 4], rngFor(0, 0, 0))).toEqual({ y: 0, x: 0, h: 1, w: 1 });
    expect(randomResizedCrop(1, 1, [0.08, 1], [0.25, 0.4], rngFor(0, 0, 0))).toEqual({ y: 0, x: 0, h: 1, w: 1 });
  });

  it("equal to FFCV's crop wherever FFCV's is not empty (20 000 random sizes, ratios and draws)", () => {
    const r = rngFor(7, 0, 0);
    let compared = 0;
    for (let i = 0; i < 20_000; i++) {
      const h = 1 + Math.floor(r.next() ** 3 * 600);
      const w = 1 + Math.floor(r.next() ** 3 * 600);
      const cr = 0.05 + r.next() * 0.95;
      const ref = ffcvCenter(h, w, cr);
      if (ref.w > 0) {
        expect(centerCrop(h, w, cr)).toEqual(ref);
        compared++;
      } else expect(centerCrop(h, w, cr)).toMatchObject({ h: 1, w: 1 });
      const lo = 0.1 + r.next() * 3;
      const ratio: [number, number] = [lo, lo * (1 + r.next() * 2)];
      const scale: [number, number] = [0.01 + r.next() * 0.5, 1];
      const a = ffcvRrc(h, w, scale, ratio, rngFor(3, 1, i));
      const b = randomResizedCrop(h, w, scale, ratio, rngFor(3, 1, i));
      if (a.w > 0 && a.h > 0) expect(b).toEqual(a);
      else expect(Math.min(b.w, b.h)).toBe(1);
      expect(b.y + b.h).toBeLessThanOrEqual(h);
      expect(b.x + b.w).toBeLessThanOrEqual(w);
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('the loader decodes 1×1 images with CenterCrop and RandomResizedCrop into the pixel colour (it blamed the file before)', async () => {
    const file = p('one-pixel.beton');
    const colours = [
      [200, 10, 30],
      [0, 128, 255],
      [77, 77, 77],
      [255, 255, 0],
    ];
    await new DatasetWriter(file, { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write(
      colours.map((c, i) => ({ image: { data: Uint8Array.from(c), width: 1, height: 1 }, label: i })),
    );
    for (const decoder of [CenterCropRGBImageDecoder(8), RandomResizedCropRGBImageDecoder(8, [0.08, 1], [3, 4])]) {
      const loader = await Loader.open(file, { batchSize: 4, numWorkers: 1, order: 'sequential', pipelines: { image: [decoder] } });
      try {
        for await (const b of loader) {
          const { shape } = b.get('image');
          const data = b.get('image').data as Uint8Array;
          expect(shape).toEqual([4, 8, 8, 3]);
          for (let s = 0; s < 4; s++)
            for (let k = 0; k < 64; k++) expect(Array.from(data.subarray((s * 64 + k) * 3, (s * 64 + k) * 3 + 3))).toEqual(colours[s]);
        }
      } finally {
        await loader.close();
      }
    }
  });
});

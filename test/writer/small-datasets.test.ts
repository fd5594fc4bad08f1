// Issue 12 item 7: defaults fit small datasets, never a silent zero. bench-loader and profile
// cap the default batch (256) at the dataset's size and say so on stderr; a batch larger
// than the file given explicitly fails naming the flag. Crops of tiny images are at least one
// pixel (FFCV fails there), and equal FFCV's everywhere FFCV succeeds (that, FFCV run in
// python3 on 20 000 cases, is test/writer/crops-vs-ffcv.test.ts, slow tier). The commands run
// in-process, but for the one failure whose exit status and stderr a real process shows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Loader } from '../../core/loader/loader.js';
import { centerCrop, randomResizedCrop } from '../../core/pipeline/crop.js';
import { rngFor } from '../../core/pipeline/rng.js';
import { CenterCropRGBImageDecoder, RandomResizedCropRGBImageDecoder } from '../../core/pipeline/spec.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { SAMPLE_IMAGES, STACK_LINE, writeImageBeton } from '../helpers/cli-inputs.js';
import { cli } from '../helpers/cli.js';
import { cliInProcess } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-small-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => join(dir, name);

beforeAll(async () => {
  await writeImageBeton(p('forty.beton'), 40);
  const demo = await cliInProcess('build', SAMPLE_IMAGES, '-o', p('demo.beton'), '--workers', '0');
  expect(demo.code, demo.err).toBe(0);
});

describe('bench-loader and profile on datasets smaller than the default batch', () => {
  it('bench-loader on 40 samples: batches of 40, said on stderr, images/s above 0', async () => {
    const r = await cliInProcess('bench-loader', p('forty.beton'), '--workers', '1', '--epochs', '2', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/has 40 samples, fewer than the default batch of 256: using batches of 40 \(--batch-size to choose\)/);
    const res = JSON.parse(r.out) as { median_img_per_s: number; config: { batchSize: number }; epochs: number[] };
    expect(res.config.batchSize).toBe(40);
    expect(res.median_img_per_s).toBeGreaterThan(0);
    expect(Math.min(...res.epochs)).toBeGreaterThan(0);
  });

  it("bench-loader and profile on the demo's own 48-image dataset work with their defaults", async () => {
    const b = await cliInProcess('bench-loader', p('demo.beton'), '--workers', '1', '--epochs', '2');
    expect(b.code, b.err).toBe(0);
    expect(b.out).toMatch(/batch 48,/);
    expect(b.out).not.toMatch(/median 0 img\/s/);
    const pr = await cliInProcess(
      'profile',
      p('demo.beton'),
      '--workers',
      '1',
      '--seconds',
      '0.5',
      '--db',
      p('runs.sqlite'),
      '--no-gpu',
      '--json',
    );
    expect(pr.code, pr.err).toBe(0);
    expect(pr.err).toMatch(/using batches of 48 \(--batch-sizes to choose\)/);
    expect(pr.err).not.toMatch(STACK_LINE);
    const run = JSON.parse(pr.out) as { plan: { batchSizes: number[] }; points: Array<{ imagesPerSec: number }> };
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

describe('crops of tiny images', () => {
  it('a 1×1 image: centre crop and the RRC fallback give one pixel', () => {
    expect(centerCrop(1, 1, 224 / 256)).toEqual({ y: 0, x: 0, h: 1, w: 1 });
    expect(centerCrop(1, 7, 224 / 256)).toEqual({ y: 0, x: 3, h: 1, w: 1 });
    expect(randomResizedCrop(1, 1, [0.08, 1], [3, 4], rngFor(0, 0, 0))).toEqual({ y: 0, x: 0, h: 1, w: 1 });
    expect(randomResizedCrop(1, 1, [0.08, 1], [0.25, 0.4], rngFor(0, 0, 0))).toEqual({ y: 0, x: 0, h: 1, w: 1 });
  });

  it('the loader decodes 1×1 images with CenterCrop and RandomResizedCrop into the pixel colour (it blamed the file before)', async () => {
    const file = p('one-pixel.beton');
    const colours = [
      [200, 10, 30],
      [0, 128, 255],
      [77, 77, 77],
      [255, 255, 0],
    ];
    // Two copies of the image field, one per decoder: one Loader (one worker start) checks both.
    const image = (c: number[]): { data: Uint8Array; width: number; height: number } => ({ data: Uint8Array.from(c), width: 1, height: 1 });
    await new DatasetWriter(
      file,
      { center: new RGBImageField({ writeMode: 'raw' }), rrc: new RGBImageField({ writeMode: 'raw' }), label: new IntField() },
      { numWorkers: 0 },
    ).write(colours.map((c, i) => ({ center: image(c), rrc: image(c), label: i })));
    const loader = await Loader.open(file, {
      batchSize: 4,
      numWorkers: 1,
      order: 'sequential',
      pipelines: { center: [CenterCropRGBImageDecoder(8)], rrc: [RandomResizedCropRGBImageDecoder(8, [0.08, 1], [3, 4])] },
    });
    let batches = 0;
    try {
      for await (const b of loader) {
        for (const field of ['center', 'rrc']) {
          const { shape } = b.get(field);
          const data = b.get(field).data as Uint8Array;
          expect(shape, field).toEqual([4, 8, 8, 3]);
          for (let s = 0; s < 4; s++)
            for (let k = 0; k < 64; k++)
              expect(Array.from(data.subarray((s * 64 + k) * 3, (s * 64 + k) * 3 + 3)), field).toEqual(colours[s]);
        }
        batches++;
      }
    } finally {
      await loader.close();
    }
    expect(batches).toBe(1);
  });
});

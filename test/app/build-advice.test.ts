/**
 * Advice before building (issue 14, feature 3): estimates from encoding a seeded sample of
 * the source, checked against what a real build of the same config makes.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { adviseBuild, buildSecondsFor, estimateFile, pickIndices } from '../../core/app/build-advice.js';
import { buildDataset } from '../../core/app/build.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-advice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const images = join(dir, 'images');
cpSync(resolve(__dirname, '../../assets/sample-images'), images, { recursive: true });
const MiB = 1024 * 1024;

/**
 * The advised config. One encode worker where the estimate is checked against a real build
 * (starting it is part of what the estimate must count); elsewhere `inline()`: no worker to
 * start, the advice's short build encodes on this thread.
 */
function config(over: Partial<BuildConfigInput> = {}): BuildConfig {
  const parsed = parseBuildConfig({
    source: { type: 'image_folder', path: images },
    output: join(dir, 'out.beton'),
    numWorkers: 1,
    image: { writeMode: 'jpg', maxResolution: 64 },
    ...over,
  });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return parsed.value;
}
const inline = (over: Partial<BuildConfigInput> = {}): BuildConfig => config({ numWorkers: 0, ...over });

describe('build advice', () => {
  it("build time: the short run's fixed costs once, each item's reading serial and its encoding over the workers", () => {
    // 10 items ran in 600 ms: 10 × 20 ms / 4 workers of encoding, the rest (550 ms) fixed.
    const t = { n: 10, readMs: 30, encodeMsPerSample: 20, workers: 4, runMs: 600 };
    expect(buildSecondsFor(1000, t)).toBeCloseTo((550 + 1000 * (3 + 5)) / 1000, 9);
    expect(buildSecondsFor(1000, { ...t, runMs: null })).toBeCloseTo(8, 9);
  });

  it('picks the same distinct items for the same seed, others for another', () => {
    const a = pickIndices(1000, 24, 7);
    expect(a).toEqual(pickIndices(1000, 24, 7));
    expect(new Set(a).size).toBe(24);
    expect(a.every((i) => i >= 0 && i < 1000)).toBe(true);
    expect(pickIndices(1000, 24, 8)).not.toEqual(a);
    expect(pickIndices(5, 24, 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it('40-odd small images in 8 MiB pages: a 16 MiB file, as the build makes; 2 MiB pages suggested (about 4 MiB)', async () => {
    // Issue 23: the estimate was encode time alone, 2-6x below the build; it now comes from a
    // short real build (start-up, reading, writing). Issue 33 item 9: within a factor 1.6 of
    // the real build either way (the old bug fails that); a shared machine's timings may
    // stray, so a pair that does is measured again, counted and logged, three times at most.
    const FACTOR = 1.6;
    const tries: string[] = [];
    let advice!: Awaited<ReturnType<typeof adviseBuild>>;
    let real!: Awaited<ReturnType<typeof buildDataset>>;
    let within = false;
    for (let k = 1; k <= 3 && !within; k++) {
      advice = await adviseBuild(config(), { sample: 24, seed: 0 });
      real = await buildDataset(config({ output: join(dir, 'real8.beton') }), { overwrite: true });
      const ratio = advice.estimate.buildSeconds! / (real.elapsedMs / 1000);
      within = ratio > 1 / FACTOR && ratio < FACTOR;
      tries.push(
        `try ${k}: estimate ${advice.estimate.buildSeconds!.toFixed(2)} s, build ${(real.elapsedMs / 1000).toFixed(2)} s (x${ratio.toFixed(2)})`,
      );
    }
    console.log(`build estimate vs the real build: ${tries.join('; ')}`);
    expect(within, `estimate not within x${FACTOR} of the real build: ${tries.join('; ')}`).toBe(true);
    expect(advice.sampled).toBe(24);
    expect(advice.picked).toBe('random');
    expect(advice.items).toBe(48);
    expect(advice.failed).toBe(0);
    expect(advice.estimate.note).toContain('24 items picked at random (seed 0) of 48');
    expect(advice.estimate.encodeMsPerSample).toBeGreaterThan(0);
    const est = advice.estimate.buildSeconds!;
    expect(est).toBeGreaterThan((48 * advice.estimate.encodeMsPerSample) / 1000 / advice.estimate.workers);
    // Same pages (one data page plus the header region's), the table within the sample's error.
    expect(Math.abs(advice.estimate.fileBytes! - real.fileSize)).toBeLessThan(0.01 * real.fileSize);
    expect(real.fileSize).toBeGreaterThan(16 * MiB);
    const rows = Object.fromEntries(advice.pageSizes.map((o) => [o.pageSize / MiB, o]));
    expect(advice.pageSizes.map((o) => o.pageSize / MiB)).toEqual([8, 4, 2]);
    expect(rows[2]!.suggested).toBe(true);
    expect(rows[8]!.chosen).toBe(true);
    expect(advice.pageSizeAdvice).toMatch(/^With 8 MiB pages the file is about 16 MiB.*2 MiB pages make it about 4 MiB/);
    const real2 = await buildDataset(inline({ output: join(dir, 'real2.beton'), pageSize: 2 * MiB }));
    expect(Math.abs(rows[2]!.fileBytes - real2.fileSize)).toBeLessThan(0.01 * real2.fileSize);
  });

  it('no page advice for a dataset that fills its pages', () => {
    const heap = Array(10).fill(100_000);
    const big = estimateFile({ items: 100_000, recordSize: 24, numFields: 2, heapSizes: heap, objectsPerSample: 1 }, 8 * MiB);
    // 83 samples a page → 1205 pages; the header region (2.4 MB of records) is one page.
    expect(big.pages).toBe(Math.ceil(100_000 / 83));
    expect(big.fileBytes).toBe(8 * MiB + big.pages * 8 * MiB + 100_000 * 24);
  });

  it('quality preview: sizes grow with quality, raw is w×h×3, the configured variant is marked', async () => {
    const advice = await adviseBuild(inline({ image: { writeMode: 'jpg', maxResolution: 64, jpegQuality: 80 } }), { previewItems: 3 });
    const q = advice.quality!;
    expect(q.field).toBe('image');
    expect(q.items).toHaveLength(3);
    for (const item of q.items) {
      const jpegs = item.variants.filter((v) => !v.chosen && v.mode === 'jpg');
      expect(jpegs.map((v) => v.quality)).toEqual([50, 75, 80, 90, 95]);
      for (let i = 1; i < jpegs.length; i++) expect(jpegs[i]!.bytes).toBeGreaterThanOrEqual(jpegs[i - 1]!.bytes);
      expect(item.variants.find((v) => v.mode === 'raw')!.bytes).toBe(item.width * item.height * 3);
      const chosen = item.variants.find((v) => v.chosen)!;
      expect(chosen.bytes).toBe(jpegs.find((v) => v.quality === 80)!.bytes);
      expect(chosen.preview?.mime).toBe('image/jpeg');
    }
  });

  it('smart threshold: counts what the sample would store as JPEG and raw', async () => {
    // 64 px images: h*w*3 ≤ 12288; a threshold of 10000 sends the larger ones to JPEG.
    const advice = await adviseBuild(inline({ image: { writeMode: 'smart', maxResolution: 64, smartThreshold: 10_000 } }), { sample: 12 });
    const s = advice.quality!.smart!;
    expect(s.jpg + s.raw).toBe(12);
    const big = advice.quality!.items.filter((i) => i.width * i.height * 3 > 10_000).length;
    expect(advice.quality!.items.filter((i) => i.variants[0]!.mode === 'jpg').length).toBe(big);
  });

  it('warns when the loader crop is larger than the max resolution, not when it is smaller', async () => {
    const advice = await adviseBuild(inline(), { loaderSize: 160, sample: 8 });
    expect(advice.crop!.warning).toMatch(/crop is larger than the max resolution 64 px.*Raise max resolution to at least 160/);
    expect(advice.warnings).toContain(advice.crop!.warning);
    const ok = await adviseBuild(inline(), { loaderSize: 32, sample: 8 });
    expect(ok.crop!.warning).toBeNull();
    expect(ok.crop!.maxSide).toBeLessThanOrEqual(64);
  });

  it('a table source: the first items, no image advice', async () => {
    const { writeFileSync } = await import('node:fs');
    const csv = join(dir, 't.csv');
    writeFileSync(csv, 'x,label\n' + Array.from({ length: 100 }, (_, i) => `${i}.5,${i % 3}`).join('\n') + '\n');
    const advice = await adviseBuild(inline({ source: { type: 'table', path: csv }, image: undefined }), { sample: 10, loaderSize: 160 });
    expect(advice.picked).toBe('first');
    expect(advice.sampled).toBe(10);
    expect(advice.quality).toBeNull();
    expect(advice.crop).toBeNull();
    expect(advice.estimate.heapBytesPerSample).toBe(0);
  });
});

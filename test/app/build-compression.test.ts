/**
 * The build report's compression ratio (issue 14, defect 5): "—", "0.00x" or "0.01x" for
 * every build, because the source images' sizes never reached the report (only pass-through
 * JPEGs counted; decoded and transcoded images did not). Every image read is counted now.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-ratio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const images = join(dir, 'images');
cpSync(resolve(__dirname, '../../assets/sample-images'), images, { recursive: true });

/** Sizes of every file under `p`. */
const sizeOf = (p: string): number =>
  statSync(p).isDirectory() ? readdirSync(p).reduce((s, n) => s + sizeOf(join(p, n)), 0) : statSync(p).size;

describe('build report: compression ratio', () => {
  let n = 0;
  for (const [name, image, workers] of [
    ['JPEG output, encode workers (the transcode path for the source JPEGs)', { writeMode: 'jpg', maxResolution: 64 }, 1],
    ['raw output on the main thread (every image decoded)', { writeMode: 'raw', maxResolution: 64 }, 0],
    ['pass-through where it can, decoded elsewhere', { writeMode: 'jpg', passThrough: true }, 1],
  ] as const) {
    it(`counts every source image it read: ${name}`, async () => {
      const parsed = parseBuildConfig({
        source: { type: 'image_folder', path: images },
        output: join(dir, `out${++n}.beton`),
        numWorkers: workers,
        image,
      });
      expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
      if (!parsed.ok) return;
      const report = await buildDataset(parsed.value);
      expect(report.sourceBytes).toBe(sizeOf(images));
      expect(report.compressionRatio).toBeCloseTo(sizeOf(images) / report.fileSize, 10);
      expect(report.compressionRatio!).toBeGreaterThan(0.05);
    });
  }

  it('a table source: the report names the bytes its ratio divides by (issue 23: "its 0 B of sources")', async () => {
    const csv = join(dir, 't.csv');
    writeFileSync(csv, `a,b\n${Array.from({ length: 50 }, (_, i) => `${i},${i / 2}`).join('\n')}\n`);
    const parsed = parseBuildConfig({ source: { type: 'table', path: csv }, output: join(dir, 't.beton'), numWorkers: 0 });
    if (!parsed.ok) throw new Error(parsed.errors.join());
    const report = await buildDataset(parsed.value);
    expect(report.sourceBytes).toBe(statSync(csv).size);
    expect(report.compressionRatio).toBeCloseTo(statSync(csv).size / report.fileSize, 10);
  });
});

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const px = (v: number): { data: Uint8Array; width: number; height: number } => ({
  data: new Uint8Array(8 * 8 * 3).fill(v),
  width: 8,
  height: 8,
});

describe('onError policy', () => {
  const samples = [
    { im: px(1), k: 0 },
    { im: { path: join(dir, 'missing-1.png') }, k: 1 },
    { im: px(3), k: 2 },
    { im: { path: join(dir, 'missing-2.png') }, k: 3 },
    { im: px(5), k: 4 },
  ];
  const schema = { im: new RGBImageField(), k: new IntField() };

  it.each([0, 2])("'fail' names the first bad source and leaves no file (%i workers)", async (numWorkers) => {
    const out = join(dir, `fail-${numWorkers}.beton`);
    await expect(new DatasetWriter(out, schema, { numWorkers }).write(samples)).rejects.toThrow(/missing-1\.png.*does not exist/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it.each([0, 2])("'skip' writes the others and reports exactly the bad ones (%i workers)", async (numWorkers) => {
    const out = join(dir, `skip-${numWorkers}.beton`);
    const report = await new DatasetWriter(out, schema, { numWorkers, onError: 'skip', chunkSize: 2 }).write(samples);
    expect(report.numSamples).toBe(3);
    expect(report.skipped.map((s) => [s.index, s.source])).toEqual([
      [1, join(dir, 'missing-1.png')],
      [3, join(dir, 'missing-2.png')],
    ]);
    expect(report.numSamples + report.skipped.length).toBe(samples.length);
    const r = await Reader.open(out);
    expect([0, 1, 2].map((i) => r.read(i).k)).toEqual([0n, 2n, 4n]);
    r.close();
  });
});

describe('source-level errors follow the policy', () => {
  it('a bad CSV cell fails the build with the row, or is skipped and reported', async () => {
    const { writeFileSync } = await import('node:fs');
    const { buildDataset } = await import('../../core/app/build.js');
    const { parseBuildConfig } = await import('../../core/api/build-config.js');
    const csv = join(dir, 't.csv');
    writeFileSync(csv, 'a,b\n1,0.5\n2,1.5\nthree,2.5\n4,3.5\n');
    const fields = [
      { name: 'a', type: 'int' },
      { name: 'b', type: 'float' },
    ];
    const cfg = (onError: string): ReturnType<typeof parseBuildConfig> =>
      parseBuildConfig({ source: { type: 'table', path: csv }, output: join(dir, `csv-${onError}.beton`), fields, onError, numWorkers: 0 });
    const fail = cfg('fail');
    const skip = cfg('skip');
    if (!fail.ok || !skip.ok) throw new Error('config');
    await expect(buildDataset(fail.value)).rejects.toThrow(/t\.csv: row 2 \(line 4\)/);
    const report = await buildDataset(skip.value);
    expect(report.numSamples).toBe(3);
    expect(report.skipped.map((s) => s.source)).toEqual([`${csv} row 2`]);
  });
});

describe('streaming', () => {
  it('an unknown-length source larger than the metadata buffer relocates correctly', async () => {
    // The metadata sink holds 4 MiB (core/writer/record-sink.ts): 131 072 records of these 32
    // bytes. 150 000 samples spill it once and leave a part-filled second buffer; the reads
    // below straddle that boundary.
    const n = 150_000;
    async function* gen(): AsyncGenerator<{ k: number; f: number; b: Uint8Array }> {
      for (let i = 0; i < n; i++) yield { k: i, f: i / 2, b: new Uint8Array(i % 5).fill(i % 251) };
    }
    const out = join(dir, 'big.beton');
    const report = await new DatasetWriter(
      out,
      { k: new IntField(), f: new FloatField(), b: new BytesField() },
      { numWorkers: 0, pageSize: 1 << 16, allowSmallPages: true },
    ).write(gen());
    expect(report.numSamples).toBe(n);
    const r = await Reader.open(out);
    for (const i of [0, 1, 4, 99_999, 131_071, 131_072, 131_073, n - 1]) {
      const s = r.read(i);
      expect(s.k).toBe(BigInt(i));
      expect(s.f).toBe(i / 2);
      expect(s.b).toEqual(new Uint8Array(i % 5).fill(i % 251));
    }
    r.close();
  });
});

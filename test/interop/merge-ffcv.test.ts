import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { buildDataset } from '../../core/app/build.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { mergeDatasets } from '../../core/writer/merge.js';
import { describeFfcv, runFfcv } from './ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-merge-ffcv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Canon = Record<string, string | Record<string, unknown>>;

/** Our reading of a file, reduced to what read_merged.py reports for each field kind. */
async function ours(path: string): Promise<{ expect: Array<Record<string, string>>; bytesSizes: Record<string, number[]> }> {
  const r = await Reader.open(path);
  const bytesSizes: Record<string, number[]> = {};
  const rows: Array<Record<string, string>> = [];
  for (let i = 0; i < r.numSamples; i++) {
    const c = canonicalSample(r, i) as Canon;
    const row: Record<string, string> = {};
    for (const { name, field } of r.fields) {
      const v = c[name]!;
      if (typeof v === 'string') row[name] = v;
      else if (field.type === 'float') row[name] = v.f64_bits as string;
      else row[name] = v.sha256 as string;
      if (field.type === 'bytes') (bytesSizes[name] ??= []).push((v as { size: number }).size);
    }
    rows.push(row);
  }
  r.close();
  return { expect: rows, bytesSizes };
}

describeFfcv('FFCV reads merged .beton files', () => {
  it('the merge of 3 shards holds, for FFCV, exactly the values of the single build', async () => {
    // Images: one size (FFCV's SimpleRGBImageDecoder needs it), a raw/JPEG mix (proportion).
    const images = join(dir, 'images');
    for (let i = 0; i < 30; i++) {
      const cls = join(images, `c${i % 3}`);
      mkdirSync(cls, { recursive: true });
      const px = Buffer.alloc(40 * 30 * 3);
      for (let k = 0; k < px.length; k++) px[k] = (k * (i + 3) + (k >> 7) * 11) & 0xff;
      await sharp(px, { raw: { width: 40, height: 30, channels: 3 } })
        .png()
        .toFile(join(cls, `${String(i).padStart(2, '0')}.png`));
    }
    const build = async (output: string, shard?: { index: number; count: number }): Promise<string> => {
      const input: BuildConfigInput = {
        source: { type: 'image_folder', path: images },
        output,
        image: { writeMode: 'proportion', compressProbability: 0.5, jpegQuality: 90 },
        numWorkers: 1,
        ...(shard ? { shard } : {}),
      };
      const cfg = parseBuildConfig(input);
      if (!cfg.ok) throw new Error(cfg.errors.join('; '));
      return (await buildDataset(cfg.value)).path;
    };
    const imgWhole = await build(join(dir, 'img-whole.beton'));
    const imgShards = [];
    for (let k = 0; k < 3; k++) imgShards.push(await build(join(dir, `img-${k}.beton`), { index: k, count: 3 }));
    const imgMerged = (await mergeDatasets(imgShards, join(dir, 'img-merged.beton'))).path;

    // Every other built-in kind, on 4 KiB pages: many pages per shard, so pointers and the
    // allocation table FFCV looks sizes up in are rebased across page boundaries.
    const schema = {
      id: new IntField(),
      x: new FloatField(),
      blob: new BytesField(),
      meta: new JSONField(),
      arr: new NDArrayField({ dtype: '<f4', shape: [3, 4] }),
    };
    const row = (i: number): Record<string, unknown> => ({
      id: BigInt(i * 7919 - 50),
      x: Math.sqrt(i) - 3.5,
      blob: new Uint8Array(1 + ((i * 53) % 400)).map((_, k) => (k * i + 1) & 0xff),
      meta: { i, name: `row-${i}`, tags: ['a', i % 3] },
      arr: new Float32Array(12).map((_, k) => i * 0.5 - k),
    });
    const write = async (p: string, from: number, to: number): Promise<string> => {
      await new DatasetWriter(p, schema, { pageSize: 4096, allowSmallPages: true, numWorkers: 0 }).write(
        Array.from({ length: to - from }, (_, k) => row(from + k)),
      );
      return p;
    };
    const tabWhole = await write(join(dir, 'tab-whole.beton'), 0, 120);
    const tabShards = [
      await write(join(dir, 'tab-0.beton'), 0, 40),
      await write(join(dir, 'tab-1.beton'), 40, 41),
      await write(join(dir, 'tab-2.beton'), 41, 120),
    ];
    const tabMerged = (await mergeDatasets(tabShards, join(dir, 'tab-merged.beton'))).path;

    const img = await ours(imgWhole);
    const tab = await ours(tabWhole);
    expect(new Set(img.expect.map((_, i) => i)).size).toBe(30);
    const { result } = runFfcv<Record<string, Array<Record<string, string>>>>('read_merged.py', {
      files: [
        { path: imgMerged, bytes_sizes: img.bytesSizes },
        { path: tabMerged, bytes_sizes: tab.bytesSizes },
      ],
    });
    expect(result[imgMerged]).toEqual(img.expect);
    expect(result[tabMerged]).toEqual(tab.expect);
    // Our reading of the merged files agrees too (and the image set mixes raw and JPEG).
    expect((await ours(imgMerged)).expect).toEqual(img.expect);
    const r = await Reader.open(imgWhole);
    const modes = new Set(Array.from({ length: r.numSamples }, (_, i) => (r.fieldMetadata(i, 0).getUint8(0) === 0 ? 'jpg' : 'raw')));
    r.close();
    expect(modes).toEqual(new Set(['jpg', 'raw']));
  }, 600_000);
});

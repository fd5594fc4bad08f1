import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BetonEncodeError, BetonFormatError } from '../../core/format/errors.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { VideoClipField } from '../../core/fields/video-clip-field.js';
import type { Schema } from '../../core/fields/schema.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import type { Sample } from '../../core/writer/sample.js';
import { mergeDatasets } from '../../core/writer/merge.js';
import { cliIn } from '../helpers/cli.js';
import { cliInProcess } from '../helpers/cli-in-process.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Spawned: only for what a process alone shows (the exit status and stderr of a real `beton`
// run). Every other command runs in-process (core/cli/main.ts): the same code, no Node start each.
const cli = cliIn(dir);
const beton = cliInProcess;

/** Every sample in the canonical encoding (the golden manifests'): equal dumps = equal datasets. */
async function dumpAll(path: string): Promise<unknown[]> {
  const r = await Reader.open(path);
  try {
    return Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));
  } finally {
    r.close();
  }
}

/** Nothing but the named files: no temp file of a failed merge left behind. */
const leftovers = (folder: string): string[] => readdirSync(folder).filter((f) => f.includes('.tmp-'));

// Every built-in field kind plus a custom one (type 255), with empty heap objects at shard
// starts: FFCV's allocator points a first zero-size object at page -1 (spec §5.2), the
// oddest pointer a merge must move.
const schema = (): Schema => ({
  id: new IntField(),
  x: new FloatField(),
  blob: new BytesField(),
  meta: new JSONField(),
  arr: new NDArrayField({ dtype: '<f4', shape: [4, 4] }),
  image: new RGBImageField(),
  clip: new VideoClipField({ writeMode: 'raw' }),
});

function sample(i: number): Sample {
  const side = 4 + (i % 13);
  const px = new Uint8Array(side * side * 3).map((_, k) => (k * 7 + i * 31) & 0xff);
  const frame = new Uint8Array(8 * 8 * 3).map((_, k) => (k + i) & 0xff);
  return {
    id: BigInt(i * 1000 - 7),
    x: i / 3,
    blob: new Uint8Array(i % 10 === 0 ? 0 : 20 + ((i * 37) % 300)).fill(i & 0xff),
    meta: { i, tag: `s${i}`, even: i % 2 === 0 },
    arr: new Float32Array(16).map((_, k) => i + k / 16),
    image: { mode: 'raw', width: side, height: side, stored: px },
    clip: { mode: 'raw', width: 8, height: 8, fps: [25, 1], stored: [frame, frame.map((b) => 255 - b)] },
  };
}

async function writeSamples(path: string, from: number, to: number, pageSize = 4096): Promise<void> {
  const samples = Array.from({ length: to - from }, (_, k) => sample(from + k));
  await new DatasetWriter(path, schema(), { pageSize, allowSmallPages: true, numWorkers: 0 }).write(samples);
}

describe('mergeDatasets (library)', () => {
  it('shards of every field kind merge into exactly the whole dataset, over many small pages', async () => {
    const whole = join(dir, 'lib-whole.beton');
    await writeSamples(whole, 0, 200);
    // Uneven shards, one of them empty, and one starting on an empty bytes object.
    const cuts = [0, 10, 10, 77, 200];
    const shards: string[] = [];
    for (let s = 0; s + 1 < cuts.length; s++) {
      const p = join(dir, `lib-shard-${s}.beton`);
      await writeSamples(p, cuts[s]!, cuts[s + 1]!);
      shards.push(p);
    }
    const out = join(dir, 'lib-merged.beton');
    const seen: number[] = [];
    const report = await mergeDatasets(shards, out, { onProgress: (p) => seen.push(p.bytesDone), chunkBytes: 8192 });
    expect(report.numSamples).toBe(200);
    const readers = await Promise.all([whole, ...shards].map((p) => Reader.open(p)));
    expect(report.pages).toBe(readers.slice(1).reduce((s, r) => s + r.numPages, 0));
    expect(report.pages).toBeGreaterThan(20);
    readers.forEach((r) => r.close());
    expect(await dumpAll(out)).toEqual(await dumpAll(whole));
    expect(seen.at(-1)).toBe(report.bytesCopied);
    // The allocation table names the merged sample ids: (sample, size) pairs as in the whole build.
    const table = async (p: string): Promise<string[]> => {
      const r = await Reader.open(p);
      const rows = [...r.allocations].map((a) => `${a.sampleId}:${a.size}`).sort();
      r.close();
      return rows;
    };
    const rows = await table(out);
    expect(rows.length).toBe(200 * 5);
    expect(rows).toEqual(await table(whole));
    expect(leftovers(dir)).toEqual([]);
  });

  it('merging a merge equals merging the parts; one input is a copy', async () => {
    const a = join(dir, 'lib-a.beton');
    const b = join(dir, 'lib-b.beton');
    await writeSamples(a, 0, 30);
    await writeSamples(b, 30, 60);
    const ab = join(dir, 'lib-ab.beton');
    await mergeDatasets([a, b], ab);
    const abab = join(dir, 'lib-abab.beton');
    await mergeDatasets([ab, a, b], abab);
    const parts = [...(await dumpAll(a)), ...(await dumpAll(b))];
    expect(await dumpAll(abab)).toEqual([...parts, ...parts]);
    const copy = join(dir, 'lib-copy.beton');
    await mergeDatasets([a], copy);
    expect(readFileSync(copy).equals(readFileSync(a))).toBe(true);
  });

  it('refuses mismatched fields, arguments and page sizes before writing anything', async () => {
    const a = join(dir, 'mm-a.beton');
    await writeSamples(a, 0, 5);
    const pages = join(dir, 'mm-pages.beton');
    await writeSamples(pages, 0, 5, 8192);
    const dtype = join(dir, 'mm-dtype.beton');
    await new DatasetWriter(dtype, { ...schema(), arr: new NDArrayField({ dtype: '<f8', shape: [4, 4] }) } as Schema, {
      pageSize: 4096,
      allowSmallPages: true,
      numWorkers: 0,
    }).write([0, 1].map((i) => ({ ...(sample(i) as Record<string, unknown>), arr: new Float64Array(16) })));
    const other = join(dir, 'mm-other.beton');
    await new DatasetWriter(other, { id: new IntField() }, { pageSize: 4096, allowSmallPages: true, numWorkers: 0 }).write([{ id: 1n }]);
    const out = join(dir, 'mm-out.beton');
    const refusal = async (inputs: string[]): Promise<BetonEncodeError> => {
      const e = await mergeDatasets(inputs, out).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BetonEncodeError);
      return e as BetonEncodeError;
    };
    const p = await refusal([a, pages]);
    expect(p.message).toMatch(/mm-pages\.beton.*mm-a\.beton.*page size 8192 vs 4096/);
    expect(p.message).not.toContain('\n');
    expect((await refusal([a, dtype])).message).toMatch(/mm-dtype\.beton.*field "arr" \(ndarray\) has different arguments/);
    expect((await refusal([a, other])).message).toMatch(/mm-other\.beton.*fields \[id:int\]/);
    expect(existsSync(out)).toBe(false);
    expect(leftovers(dir)).toEqual([]);
  });

  it('refuses a truncated or foreign input, naming it; an existing output needs overwrite', async () => {
    const a = join(dir, 'tr-a.beton');
    await writeSamples(a, 0, 40);
    const cut = join(dir, 'tr-cut.beton');
    copyFileSync(a, cut);
    truncateSync(cut, readFileSync(a).byteLength - 30);
    const foreign = join(dir, 'tr-foreign.beton');
    writeFileSync(foreign, 'id,label\n1,2\n'.repeat(100));
    const out = join(dir, 'tr-out.beton');
    for (const bad of [cut, foreign]) {
      const e = await mergeDatasets([a, bad], out).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BetonFormatError);
      expect((e as Error).message).toContain(bad);
    }
    expect(existsSync(out)).toBe(false);
    await mergeDatasets([a], out);
    await expect(mergeDatasets([a, a], out)).rejects.toThrow(/already exists.*--force/);
    await mergeDatasets([a, a], out, { overwrite: true });
    expect((await dumpAll(out)).length).toBe(80);
    // The output may be one of the inputs: it is only replaced once the merge is complete.
    await mergeDatasets([out, a], out, { overwrite: true });
    expect((await dumpAll(out)).length).toBe(120);
    expect(leftovers(dir)).toEqual([]);
  });

  it('a cancelled merge leaves nothing', async () => {
    const a = join(dir, 'ab-a.beton');
    await writeSamples(a, 0, 100);
    const out = join(dir, 'ab-out.beton');
    const ac = new AbortController();
    const e = await mergeDatasets([a, a, a], out, {
      signal: ac.signal,
      chunkBytes: 4096,
      onProgress: (p) => p.bytesDone > 20_000 && ac.abort(new Error('stop')),
    }).catch((x: unknown) => x);
    expect((e as Error).message).toBe('stop');
    expect(existsSync(out)).toBe(false);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('beton merge (CLI)', () => {
  const csv = join(dir, 'table.csv');
  const rows = ['id,score,name,label'];
  for (let i = 0; i < 250; i++) rows.push(`${i},${(i * 0.37).toFixed(3)},"row ${i}, ${'x'.repeat(i % 17)}",${i % 5}`);
  writeFileSync(csv, rows.join('\n') + '\n');

  for (const [what, source, flags] of [
    [
      'an image folder (proportion mode: per-sample raw/jpg draws)',
      SAMPLE,
      ['--write-mode', 'proportion', '--compress-probability', '0.5', '--max-resolution', '48'],
    ],
    ['a CSV table', csv, []],
  ] as const) {
    it(`the merge of --shard k/3 builds of ${what} is the single build`, async () => {
      const tag = source === csv ? 'csv' : 'img';
      const whole = join(dir, `${tag}-whole.beton`);
      // --workers 0: encode on this thread (a worker start per build costs more than the 48
      // images); what is checked is the shards' split and the merge, not the encode pool.
      const b = await beton('build', source, '-o', whole, '--workers', '0', ...flags);
      expect(b.code, b.err).toBe(0);
      const shards: string[] = [];
      for (let k = 0; k < 3; k++) {
        const out = join(dir, `${tag}-shard-${k}.beton`);
        const s = await beton('build', source, '-o', out, '--shard', `${k}/3`, '--workers', '0', ...flags);
        expect(s.code, s.err).toBe(0);
        shards.push(out);
      }
      const merged = join(dir, `${tag}-merged.beton`);
      const m = await beton('merge', ...shards, '-o', merged, '--json');
      expect(m.code, m.err).toBe(0);
      const report = JSON.parse(m.out) as { numSamples: number; inputs: unknown[] };
      expect(report.inputs.length).toBe(3);
      // A plain (non-TTY) progress line, like build's.
      expect(m.err).toMatch(/^merge \(MiB\): \d+\/\d+ /m);
      const want = await dumpAll(whole);
      expect(report.numSamples).toBe(want.length);
      expect(await dumpAll(merged)).toEqual(want);
      // Same `beton dump` too, header aside: each shard ends with its own part-filled page.
      const dump = async (p: string): Promise<unknown> => {
        const d = JSON.parse((await beton('dump', p)).out) as { header: Record<string, unknown>; fields: unknown; samples: unknown };
        return { fields: d.fields, samples: d.samples, numSamples: d.header.num_samples };
      };
      expect(await dump(merged)).toEqual(await dump(whole));
      if (tag === 'img') {
        const modes = (want as Array<{ image: { mode: string } }>).map((s) => s.image.mode);
        expect(new Set(modes)).toEqual(new Set(['raw', 'jpg']));
      }
    });
  }

  it('refusals: exit 1 with one line naming the files and what to do; usage errors exit 2; no output left', async () => {
    const img = join(dir, 'img-shard-0.beton');
    const tab = join(dir, 'csv-shard-0.beton');
    const out = join(dir, 'cli-out.beton');
    const mixed = cli('merge', img, tab, '-o', out);
    expect(mixed.status).toBe(1);
    const line = mixed.stderr.split('\n')[0]!;
    expect(line).toContain(img);
    expect(line).toContain(tab);
    expect(line).toMatch(/BAD_SCHEMA.*merge needs files built with the same fields and page size/);
    expect(mixed.stderr).not.toMatch(/\n\s+at /);

    // The other refusals in-process: the same report() prints them.
    const big = join(dir, 'img-bigpages.beton');
    expect((await beton('build', SAMPLE, '-o', big, '--range', '0:4', '--page-size', String(4 << 20), '--workers', '0')).code).toBe(0);
    const pages = await beton('merge', img, big, '-o', out);
    expect(pages.code).toBe(1);
    expect(pages.err).toMatch(/page size 4194304 vs 8388608 bytes \(rebuild one with --page-size 8388608\)/);

    const cut = join(dir, 'cli-cut.beton');
    copyFileSync(img, cut);
    truncateSync(cut, 5000);
    const trunc = await beton('merge', img, cut, '-o', out);
    expect(trunc.code).toBe(1);
    expect(trunc.err).toContain(cut);
    expect(trunc.err).toContain('[TRUNCATED]');
    const missing = await beton('merge', img, join(dir, 'nope.beton'), '-o', out);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('nope.beton');

    expect((await beton('merge', img, '-o', out)).code).toBe(0);
    const again = await beton('merge', img, '-o', out);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already exists.*--force/);
    expect((await beton('merge', img, img, '-o', out, '--force')).code).toBe(0);

    expect((await beton('merge', img)).code).toBe(2);
    expect((await beton('merge', '-o', out)).code).toBe(2);
    expect((await beton('merge', img, '-o', out, '--bogus')).code).toBe(2);
    expect((await beton('--help')).out).toContain('merge');
    expect(leftovers(dir)).toEqual([]);
  });
});

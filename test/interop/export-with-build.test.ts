// Issue 23: the Export screen's "Include the build that wrote this file" for a source FFCV has
// no reader for (a CSV) wrote `dataset = ...` and called `from_indexed_dataset(dataset)` at
// module level, so the script died with a TypeError before reaching its loader. Now the build
// is a function left for the user to call, and the script runs in the real FFCV. Its batches
// have FFCV's own shapes: a FloatField and an IntField both give (batch, 1), as FFCV's
// decoders do (checked here against FFCV itself, not assumed).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { BetonService } from '../../core/services/beton-service.js';
import { describeFfcv, PYTHON } from './ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-export-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeFfcv('exported build + loader code runs in FFCV', () => {
  it('a CSV build exported with its loader runs to the first batch; floats and ints are (64, 1), as in FFCV', async () => {
    const csv = join(dir, 't.csv');
    writeFileSync(csv, `id,weight\n${Array.from({ length: 100 }, (_, i) => `${i},${i / 4}`).join('\n')}\n`);
    const parsed = parseBuildConfig({ source: { type: 'table', path: csv }, output: join(dir, 't.beton'), numWorkers: 1 });
    if (!parsed.ok) throw new Error(parsed.errors.join());
    await buildDataset(parsed.value, { baseDir: dir });
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(dir, 'runs.sqlite') });
    let text: string;
    try {
      const env = await service.call('export.generate', {
        build: { source: { type: 'table', path: csv }, output: join(dir, 't.beton') },
        loader: { file: join(dir, 't.beton'), batchSize: 64, order: 'sequential', numWorkers: 1, pipelines: {} },
        format: 'python',
      });
      if (!env.ok) throw new Error(env.error.message);
      text = (env.value as { text: string }).text;
    } finally {
      service.close();
    }
    expect(text).not.toMatch(/^dataset = \.\.\./m);
    expect(text).not.toMatch(/^writer\.from_indexed_dataset/m);
    // FFCV's own shapes for the same file, with its default pipelines, and the exported loader's.
    const script = join(dir, 'run.py');
    writeFileSync(
      script,
      `${text}\n\nimport json\nfrom ffcv.loader import Loader as _L, OrderOption as _O\n` +
        `ref = next(iter(_L(${JSON.stringify(join(dir, 't.beton'))}, batch_size=64, num_workers=1, order=_O.SEQUENTIAL)))\n` +
        `got = next(iter(loader))\n` +
        `print(json.dumps({"ffcv": [list(t.shape) for t in ref], "exported": [list(t.shape) for t in got]}))\n`,
    );
    const r = spawnSync('timeout', ['-k', '5', '300', PYTHON, script], { cwd: dir, encoding: 'utf8', maxBuffer: 16 << 20 });
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    const shapes = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ffcv: number[][]; exported: number[][] };
    expect(shapes.ffcv).toEqual([
      [64, 1],
      [64, 1],
    ]);
    expect(shapes.exported).toEqual(shapes.ffcv);
  }, 400_000);
});

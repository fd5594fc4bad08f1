/**
 * The first hour with the CLI (issue 30), each item as a newcomer met it on main:
 * - `npm run beton -- inspect train.beton` from another folder failed with ENOENT (paths
 *   resolved from the checkout, where npm runs scripts);
 * - `beton export FILE` wrote batch 256 with drop_last for a 200-sample file (no batch at all)
 *   and no flip where `beton profile` had measured one; a profile run could not be exported;
 * - the build report said "sources 0.45x the output" (backwards) and not where the manifest is;
 * - `beton --help` said build takes "an image folder or a build config".
 * One command runs through npm and a few through bin/beton.js (what only a process shows:
 * the folder it runs in, exit codes); the rest call the CLI's main() in this process.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { cli, CLI, ROOT } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';
import { fixturePath } from '../helpers/fixtures.js';
import { seedSweep, SEED_DATASET } from '../helpers/seeded-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-first-hour-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 200-sample file of 24×16 raw images (smaller than the default batch of 256). */
const small = join(dir, 'small.beton');
beforeAll(async () => {
  const pixels = new Uint8Array(24 * 16 * 3).fill(90);
  await new DatasetWriter(small, { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write(
    Array.from({ length: 200 }, (_, i) => ({ image: { width: 24, height: 16, data: pixels }, label: i % 3 })),
  );
});

describe('npm run beton from another folder', () => {
  it('resolves the paths of the command line from the folder npm was called in (INIT_CWD)', () => {
    const here = mkdtempSync(join(dir, 'caller-'));
    copyFileSync(fixturePath('images_jpg'), join(here, 'train.beton'));
    // Once through npm itself: the input is read and the output lands there, not in the checkout.
    const e = spawnSync(
      'timeout',
      ['-k', '5', '120', 'npm', '--prefix', ROOT, 'run', '--silent', 'beton', '--', 'export', 'train.beton', '-o', 'load.py'],
      {
        cwd: here,
        encoding: 'utf8',
        env: { ...process.env, BETON_DEBUG: '' },
      },
    );
    expect(e.stderr).not.toMatch(/ENOENT/);
    expect(e.status, e.stderr).toBe(0);
    expect(existsSync(join(here, 'load.py'))).toBe(true);
    expect(existsSync(join(ROOT, 'load.py'))).toBe(false);
    // The other commands as npm starts bin/beton.js (its variables, the checkout as the folder),
    // without npm's own start-up.
    const npmEnv = {
      ...process.env,
      BETON_DEBUG: '',
      INIT_CWD: here,
      npm_lifecycle_event: 'beton',
      npm_package_json: join(ROOT, 'package.json'),
    };
    const asNpm = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: npmEnv });
    const r = asNpm('inspect', 'train.beton');
    expect(r.stderr).not.toMatch(/ENOENT/);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/40 samples/);
    // A missing file is named as the caller gave it, one line, exit 1.
    const m = asNpm('inspect', 'nope.beton');
    expect(m.status).toBe(1);
    expect(m.stderr).toMatch(/nope\.beton/);
  }, 150_000);
});

describe('beton export FILE: the loader beton profile measures', () => {
  it('caps the default batch at a 200-sample file (saying so on stderr) and keeps the flip', async () => {
    const r = cli(['export', small]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('batch_size=200,');
    expect(r.stderr).toMatch(/200 samples, fewer than the default batch of 256: using batches of 200/);
    expect(r.stdout).toContain('RandomResizedCropRGBImageDecoder((160, 160)');
    expect(r.stdout).toContain('RandomHorizontalFlip(flip_prob=0.5)');
    const off = await cliHere(['export', small, '--no-flip', '--batch-size', '50']);
    expect(off.status, off.stderr).toBe(0);
    expect(off.stdout).not.toContain('RandomHorizontalFlip(');
    expect(off.stdout).toContain('batch_size=50,');
    expect(off.stderr).toBe('');
  });

  it('a batch larger than the file is refused naming the largest that fits', async () => {
    const r = await cliHere(['export', small, '--batch-size', '256']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/has 200 samples, fewer than one batch of 256/);
    expect(r.stderr).toMatch(/--batch-size 200 or less/);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  });
});

describe('beton export --run: a profile run, named in the code', () => {
  const db = join(dir, 'runs.sqlite');
  beforeAll(() => {
    const h = RunsDb.open(db);
    try {
      const machine = { hostname: 'box', cpuModel: 'cpu', cores: 2, ramBytes: 4e9, os: 'linux', node: 'v20', gpus: [] };
      const sweepSeed = {
        startedAt: '2026-11-20T10:00:00.000Z',
        workers: [1, 2, 4],
        rates: [300, 900, 600],
        samples: [],
        machine,
        dataset: { path: small, numSamples: 200, schema: [...SEED_DATASET.schema, { name: 'label', type: 'int', typeId: 1 }] },
        batchesAhead: 5,
        verdict: null,
      };
      h.saveRun(seedSweep(sweepSeed));
      // A sweep of both engines: ours faster, FFCV's points the ones an FFCV export reproduces.
      const both = seedSweep({ ...sweepSeed, workers: [1, 2, 1, 2], rates: [500, 800, 200, 350] });
      both.points = both.points.map((p, i) => ({ ...p, config: { ...p.config, engine: i < 2 ? 'beton' : 'ffcv' } }));
      h.saveRun(both);
      h.saveRun({
        kind: 'exec',
        startedAt: '2026-11-21T10:00:00.000Z',
        finishedAt: '2026-11-21T10:01:00.000Z',
        status: 'ok',
        plan: { command: 'python train.py', throughputRegex: null, file: null },
        machine,
        dataset: null,
        points: [],
        samples: [],
        verdict: null,
      });
    } finally {
      h.close();
    }
  });

  it('exports the fastest point with the plan’s decoder, flip and batches ahead, and says which', async () => {
    const r = await cliHere(['export', '--run', '1', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^# From profile run 1, point #2 of 3 \(the fastest\): beton engine, 2 workers, batch 64, random, os cache, rrc:160 \+ flip: 900 img\/s/m,
    );
    expect(r.stdout).toContain('num_workers=2,');
    expect(r.stdout).toContain('batch_size=64,');
    expect(r.stdout).toContain('batches_ahead=5,');
    expect(r.stdout).toContain('RandomHorizontalFlip(flip_prob=0.5)');
    expect(r.stdout).toContain('"label": [IntDecoder(), ToTensor()]');
    // --point picks another.
    const third = await cliHere(['export', '--run', '1', '--point', '3', '--db', db]);
    expect(third.status, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^# From profile run 1, point #3 of 3: beton engine, 4 workers/m);
    expect(third.stdout).toContain('num_workers=4,');
    // `last` is the newest sweep (the exec run after it has no loader); where FFCV was measured,
    // its fastest point (the code is FFCV's), though ours was faster.
    const last = await cliHere(['export', '--run', 'last', '--db', db]);
    expect(last.status, last.stderr).toBe(0);
    expect(last.stdout).toMatch(
      /^# From profile run 2, point #4 of 4 \(the fastest FFCV point\): ffcv engine, 2 workers, batch 64.*: 350 img\/s/m,
    );
    const json = await cliHere(['export', '--run', '1', '--db', db, '--format', 'json']);
    expect((JSON.parse(json.stdout) as { origin: string }).origin).toMatch(/^profile run 1, point #2/);
  });

  it('refuses what it cannot export in one line each', async () => {
    const exec = await cliHere(['export', '--run', '3', '--db', db]);
    expect(exec.status).toBe(1);
    expect(exec.stderr).toMatch(/run 3 profiled a training command: it has no loader settings to export/);
    const point = await cliHere(['export', '--run', '1', '--point', '7', '--db', db]);
    expect(point.status).toBe(1);
    expect(point.stderr).toMatch(/run 1 has no point #7 \(it has 3\)/);
    const missing = await cliHere(['export', '--run', '9', '--db', db]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/run 9 not found/);
    const flags = await cliHere(['export', '--run', '1', '--decoder', 'simple', '--db', db]);
    expect(flags.status).toBe(2);
    expect(flags.stderr).toMatch(/--run exports the run's own settings; --decoder is for a \.beton FILE/);
    const both = await cliHere(['export', small, '--run', '1', '--db', db]);
    expect(both.status).toBe(2);
    const nodb = await cliHere(['export', '--run', 'last', '--db', join(dir, 'none.sqlite')]);
    expect(nodb.status).toBe(2);
    expect(nodb.stderr).toMatch(/no runs database at .*none\.sqlite: profile a file first/);
    expect(existsSync(join(dir, 'none.sqlite'))).toBe(false);
    for (const r of [exec, point, missing, flags, both, nodb]) expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('the app’s export names the run too', () => {
  it('export.generate with `from` writes the run and point into the code; a run that is gone is NOT_FOUND', async () => {
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(dir, 'runs.sqlite') });
    try {
      const loader = { file: small, batchSize: 64, numWorkers: 2, pipelines: { label: [{ decoder: 'int' as const }] } };
      const r = await service.call('export.generate', { loader, from: { run: 1, point: 2 } });
      if (!r.ok) throw new Error(r.error.message);
      expect((r.value as { text: string }).text).toMatch(/^# From profile run 1, point #2 of 3: beton engine, 2 workers/m);
      const plain = await service.call('export.generate', { loader });
      if (!plain.ok) throw new Error(plain.error.message);
      expect((plain.value as { text: string }).text).not.toMatch(/^# From /m);
      const gone = await service.call('export.generate', { loader, from: { run: 99 } });
      expect(gone.ok).toBe(false);
      if (!gone.ok) expect(gone.error.message).toMatch(/run 99 not found/);
    } finally {
      service.close();
    }
  });
});

describe('beton export --build: a script that builds only when run, and keeps an existing file', () => {
  it('builds under __main__ only, with --overwrite to replace', async () => {
    const config = join(dir, 'build.json');
    // The source is opened only when the config lists no fields: give them (no photos/ needed).
    writeFileSync(
      config,
      JSON.stringify({
        source: { type: 'image_folder', path: 'photos' },
        output: 'photos.beton',
        fields: [
          { name: 'image', type: 'rgb_image' },
          { name: 'label', type: 'int' },
        ],
      }),
    );
    const r = await cliHere(['export', '--build', config]);
    expect(r.status, r.stderr).toBe(0);
    const code = r.stdout;
    const main = code.indexOf('if __name__ == "__main__":');
    expect(main).toBeGreaterThan(0);
    // Nothing at module level opens the dataset or writes the file.
    expect(code.slice(0, main)).not.toMatch(/^(dataset = |build_dataset\(|writer\.)/m);
    expect(code.slice(main)).toContain(`build_dataset(ImageFolder(${JSON.stringify(join(dir, 'photos'))}), overwrite=True)`);
    expect(code).toContain('parser.add_argument("--overwrite"');
    expect(code).toMatch(
      /if os\.path\.exists\(OUTPUT\) and not args\.overwrite:\n.*\n\s+print\(f"\{OUTPUT\} exists: kept it; pass --overwrite/,
    );
    expect(code).toContain('raise FileExistsError(f"{OUTPUT} exists: pass overwrite=True to replace it")');
  });
});

describe('beton build: the report and the help in words', () => {
  // A real process: the file's only build (in this process it would first load the whole build
  // path from TypeScript, slower than a Node start with the compiled one).
  it('says the output against its sources and where the manifest is', () => {
    const csv = join(dir, 'table.csv');
    writeFileSync(csv, `id,weight\n${Array.from({ length: 300 }, (_, i) => `${i},${i / 4}`).join('\n')}\n`);
    const out = join(dir, 'table.beton');
    const r = cli(['build', csv, '-o', out, '--page-size', String(2 << 20), '--workers', '0']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/sources [\d.]+x the output/);
    const bytes = readFileSync(csv).length;
    const file = readFileSync(out).length;
    const m = /; ([\d.]+)x the size of its ([\d.]+ KiB) of source files/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeCloseTo(file / bytes, 0);
    expect(m![2]).toBe(`${(bytes / 1024).toFixed(1)} KiB`);
    expect(r.stdout).toContain(`class names, build config and this report: ${out}.manifest.json`);
    expect(existsSync(`${out}.manifest.json`)).toBe(true);
  });

  it('beton --help lists what build takes', async () => {
    const r = await cliHere(['--help']);
    expect(r.stdout).not.toContain('from an image folder or a build config');
    const line = r.stdout.split('\n').find((l) => l.startsWith('  build '))!;
    for (const kind of ['image folder', 'CSV', 'Parquet', 'JSONL', 'npy', 'WebDataset', 'videos', 'config']) expect(line).toContain(kind);
    const help = (await cliHere(['build', '--help'])).stdout;
    expect(help).toMatch(/WebDataset shards/);
    expect(help).toMatch(/\.npy \.npz/);
  });
});

describe('the decoder in words', () => {
  it('env.info names the JPEG decoder as a user reads it, not the npm package id', async () => {
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(dir, 'svc.sqlite') });
    try {
      const env = await service.call('env.info', {});
      if (!env.ok) throw new Error(env.error.message);
      const name = (env.value as { decoderName?: string }).decoderName;
      expect(name).toMatch(/^(libjpeg-turbo \d+\.\d+(\.\d+)?|sharp \(slower fallback\))$/);
      expect(name).not.toMatch(/npm/);
    } finally {
      service.close();
    }
  });
});

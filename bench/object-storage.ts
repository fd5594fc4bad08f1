/**
 * Object-storage benchmark: the loader over s3:// (an S3 API server on loopback, s3rver
 * in a child process) against the same file on local disk, in the same run.
 *
 *   npm run bench -- object-storage [--quick] [--images N] [--reps N] [--json FILE]
 *
 * Cases (each a fresh Loader, quasi_random order, CenterCrop 128, batch 16, 2 workers;
 * the img/s of the second epoch, medians over reps):
 *  - local: the file on disk (OS page cache, warm).
 *  - s3 page pool: a pool a quarter of the file (at least one batch's worst case, 17
 *    pages), so every epoch fetches most pages again.
 *  - s3 disk cache: a second process's epochs with --cache-dir filled by the first, and
 *    the same small pool: pages come from local disk, no request.
 * Also per epoch over s3: bytes fetched / file size, and the request count.
 * Prints a table, then one JSON line ({"bench":"object-storage",...}).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { IntField } from '../core/fields/int-field.js';
import { RGBImageField } from '../core/fields/rgb-image-field.js';
import { Loader, type LoaderOptions } from '../core/loader/loader.js';
import { CenterCropRGBImageDecoder, ToCHW } from '../core/pipeline/spec.js';
import { uploadFile } from '../core/remote/s3-upload.js';
import { DatasetWriter } from '../core/writer/dataset-writer.js';
import { benchMain, intSetting, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { classPalette, synthImage } from './lib/synth-image.js';
import { mixSeed, Rng } from './lib/prng.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const HELP = `npm run bench -- object-storage [options]
  --images N    images in the dataset (default 4000; --quick 1200)
  --reps N      repetitions; medians are reported (default 3; --quick 1)
  --json FILE   also write the JSON result there
  --quick       a small smoke run`;

interface Config {
  images: number;
  reps: number;
  jsonFile: string | undefined;
}

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean' },
      quick: { type: 'boolean' },
      images: { type: 'string' },
      reps: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (values.help) return 'help';
  const q = values.quick === true;
  return {
    images: intSetting(values.images, 'images', 'BENCH_OBJECT_IMAGES', q ? 1200 : 4000),
    reps: intSetting(values.reps, 'reps', 'BENCH_REPS', q ? 1 : 3),
    jsonFile: values.json,
  };
}

/** A JPEG dataset of synthetic photos (~256 px), 1 MiB pages (many pages from few images), cached under .bench/. */
async function dataset(n: number): Promise<string> {
  const dir = join(benchScratchDir(), 'object-storage');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `images-${n}.beton`);
  if (existsSync(path)) return path;
  const rows = function* () {
    for (let i = 0; i < n; i++) {
      const rng = new Rng(mixSeed(7, i));
      const w = rng.int(200, 320);
      const h = rng.int(180, 300);
      yield { image: { data: synthImage(w, h, classPalette(i % 10, 10, rng), rng), width: w, height: h }, label: i % 10 };
    }
  };
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'jpg', jpegQuality: 90 }), label: new IntField() },
    { pageSize: 2 ** 20, allowSmallPages: true },
  ).write(rows());
  return path;
}

/** s3rver in a child process (so the benchmark's event loop serves only the loader). */
async function startS3(directory: string): Promise<{ endpoint: string; child: ChildProcess }> {
  const script = `import S3rver from 's3rver';
const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(directory)}, configureBuckets: [{ name: 'bench' }] });
const { port } = await s.run();
process.stdout.write(JSON.stringify({ port }) + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (b: Buffer) => resolve((JSON.parse(b.toString()) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

interface EpochFigures {
  imgPerSec: number;
  bytes: number;
  requests: number;
}

/** Two epochs of a fresh loader; figures of the second (the first warms the OS cache, the pool or the disk cache). */
async function secondEpoch(path: string, extra: Partial<LoaderOptions>): Promise<EpochFigures> {
  const loader = await Loader.open(path, {
    batchSize: 16,
    numWorkers: 2,
    order: 'quasi_random',
    seed: 1,
    pipelines: { image: [CenterCropRGBImageDecoder([128, 128], 224 / 256), ToCHW()] },
    ...extra,
  });
  try {
    let figures: EpochFigures = { imgPerSec: 0, bytes: 0, requests: 0 };
    for (let epoch = 0; epoch < 2; epoch++) {
      const stats = loader.reader.remote?.client.stats;
      const [b0, r0] = [stats?.bytes ?? 0, stats?.requests ?? 0];
      const t0 = performance.now();
      let n = 0;
      for await (const b of loader) n += b.size;
      const s = (performance.now() - t0) / 1000;
      figures = { imgPerSec: n / s, bytes: (stats?.bytes ?? 0) - b0, requests: (stats?.requests ?? 0) - r0 };
    }
    return figures;
  } finally {
    await loader.close();
  }
}

async function run(cfg: Config): Promise<void> {
  const file = await dataset(cfg.images);
  const size = statSync(file).size;
  const scratch = join(benchScratchDir(), 'object-storage', 'run');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const { endpoint, child } = await startS3(join(scratch, 's3'));
  const saved = { ...process.env };
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  });
  try {
    const url = 's3://bench/images.beton';
    await uploadFile(file, url);
    const pool = Math.floor(size / 4);
    const runs: Record<'local' | 'pool' | 'disk', EpochFigures[]> = { local: [], pool: [], disk: [] };
    for (let r = 0; r < cfg.reps; r++) {
      runs.local.push(await secondEpoch(file, {}));
      runs.pool.push(await secondEpoch(url, { remote: { poolBytes: pool } }));
      const cacheDir = join(scratch, `cache-${r}`);
      await secondEpoch(url, { remote: { poolBytes: pool, cacheDir } }); // the first process fills the disk cache
      runs.disk.push(await secondEpoch(url, { remote: { poolBytes: pool, cacheDir } }));
    }
    const med = (k: keyof typeof runs, f: keyof EpochFigures): number => median(runs[k].map((x) => x[f]));
    const local = med('local', 'imgPerSec');
    const rows = [
      ['local file (OS cache)', round(local).toString(), '1.00x', '-', '-'],
      ...(['pool', 'disk'] as const).map((k) => [
        k === 'pool' ? 's3:// page pool (1/4 of the file)' : 's3:// + disk cache (2nd process)',
        round(med(k, 'imgPerSec')).toString(),
        `${(med(k, 'imgPerSec') / local).toFixed(2)}x`,
        `${(med(k, 'bytes') / size).toFixed(3)}x`,
        round(med(k, 'requests'), 0).toString(),
      ]),
    ];
    console.log(
      `object storage: ${cfg.images} images, ${(size / 2 ** 20).toFixed(1)} MiB, 1 MiB pages, s3rver on loopback; medians of ${cfg.reps}`,
    );
    console.log(renderTable(['case', 'img/s (2nd epoch)', 'vs local', 'bytes fetched / file size', 'requests / epoch'], rows));
    const json = { bench: 'object-storage', images: cfg.images, fileBytes: size, poolBytes: pool, runs };
    console.log(JSON.stringify(json));
    if (cfg.jsonFile) writeFileSync(cfg.jsonFile, JSON.stringify(json, null, 2));
  } finally {
    process.env = saved;
    child.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

export const main: BenchMain = benchMain('object-storage', HELP, parse, run);
if (isEntryPoint(import.meta.url)) runAsScript(main);

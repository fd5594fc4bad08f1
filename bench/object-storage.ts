/**
 * Object-storage benchmark: the loader over s3:// (an S3 API server on loopback, s3rver
 * in a child process) against the same file on local disk, in the same run.
 *
 *   npm run bench -- object-storage [--quick] [--images N] [--reps N] [--json FILE]
 *
 * Cases (each a fresh Loader, quasi_random order, CenterCrop 128, batch 16, 2 workers;
 * img/s of its first and second epoch, medians over reps):
 *  - local: the file on disk (OS page cache, warm).
 *  - s3 page pool (default size): epoch 1 fetches every page once, epoch 2 none.
 *  - s3 + disk cache: a second loader (as another process) whose cacheDir the first filled.
 *  - s3 with a pool of a quarter of the file: smaller than quasi_random's active pages
 *    (2 x batch size), so pages are fetched again: what an undersized pool costs.
 * Also per epoch over s3: bytes fetched / file size, and the request count.
 * Prints a table, then one JSON line ({"bench":"object-storage",...}).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { IntField } from '../core/fields/int-field.js';
import { RGBImageField } from '../core/fields/rgb-image-field.js';
import { Loader, type LoaderOptions } from '../core/loader/loader.js';
import { CenterCropRGBImageDecoder, ToCHW } from '../core/pipeline/spec.js';
import { uploadFile } from '../core/remote/s3-upload.js';
import { DatasetWriter } from '../core/writer/dataset-writer.js';
import { benchMain, intSetting, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { COMMON_OPTIONS, commonHelp, commonSettings, writeResult, type CommonSettings } from './lib/common-options.js';
import { classPalette, synthImage } from './lib/synth-image.js';
import { mixSeed, Rng } from './lib/prng.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const REPS = { reps: 3, quickReps: 1 };
const HELP = `npm run bench -- object-storage [options]
  --images N    images in the dataset (default 4000; --quick 1200)
${commonHelp(REPS)}`;

interface Config extends CommonSettings {
  images: number;
}

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, images: { type: 'string' } } });
  if (values.help) return 'help';
  const common = commonSettings(values, REPS);
  return { ...common, images: intSetting(values.images, 'images', 'BENCH_OBJECT_IMAGES', common.quick ? 1200 : 4000) };
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

/** Two epochs of a fresh loader: the first (cold pool, or a disk cache another process filled) and the second. */
async function twoEpochs(path: string, extra: Partial<LoaderOptions>): Promise<[EpochFigures, EpochFigures]> {
  const loader = await Loader.open(path, {
    batchSize: 16,
    numWorkers: 2,
    order: 'quasi_random',
    seed: 1,
    pipelines: { image: [CenterCropRGBImageDecoder([128, 128], 224 / 256), ToCHW()] },
    ...extra,
  });
  try {
    const out: EpochFigures[] = [];
    for (let epoch = 0; epoch < 2; epoch++) {
      const stats = loader.reader.remote?.client.stats;
      const [b0, r0] = [stats?.bytes ?? 0, stats?.requests ?? 0];
      const t0 = performance.now();
      let n = 0;
      for await (const b of loader) n += b.size;
      const s = (performance.now() - t0) / 1000;
      out.push({ imgPerSec: n / s, bytes: (stats?.bytes ?? 0) - b0, requests: (stats?.requests ?? 0) - r0 });
    }
    return [out[0]!, out[1]!];
  } finally {
    await loader.close();
  }
}

type Case = 'local' | 'pool' | 'disk' | 'small';
const LABELS: Record<Case, string> = {
  local: 'local file (OS cache, warm)',
  pool: 's3:// page pool (default 512 MiB)',
  disk: 's3:// + disk cache filled by another process',
  small: 's3:// pool of 1/4 of the file (< quasi_random active pages)',
};

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
    const runs: Record<Case, Array<[EpochFigures, EpochFigures]>> = { local: [], pool: [], disk: [], small: [] };
    for (let r = 0; r < cfg.reps; r++) {
      runs.local.push(await twoEpochs(file, {}));
      const cacheDir = join(scratch, `cache-${r}`);
      runs.pool.push(await twoEpochs(url, { remote: { cacheDir } })); // also fills the disk cache
      runs.disk.push(await twoEpochs(url, { remote: { cacheDir } }));
      runs.small.push(await twoEpochs(url, { remote: { poolBytes: Math.floor(size / 4) } }));
    }
    const med = (k: Case, e: 0 | 1, f: keyof EpochFigures): number => median(runs[k].map((x) => x[e][f]));
    const rows = (['local', 'pool', 'disk', 'small'] as const).map((k) => [
      LABELS[k],
      round(med(k, 0, 'imgPerSec')).toString(),
      `${(med(k, 0, 'imgPerSec') / med('local', 0, 'imgPerSec')).toFixed(2)}x`,
      round(med(k, 1, 'imgPerSec')).toString(),
      `${(med(k, 1, 'imgPerSec') / med('local', 1, 'imgPerSec')).toFixed(2)}x`,
      k === 'local' ? '-' : `${(med(k, 0, 'bytes') / size).toFixed(3)}x / ${(med(k, 1, 'bytes') / size).toFixed(3)}x`,
      k === 'local' ? '-' : `${round(med(k, 0, 'requests'), 0)} / ${round(med(k, 1, 'requests'), 0)}`,
    ]);
    console.log(
      `object storage: ${cfg.images} images, ${(size / 2 ** 20).toFixed(1)} MiB, 1 MiB pages (${Math.ceil(size / 2 ** 20)}), s3rver on loopback; medians of ${cfg.reps}`,
    );
    console.log(
      renderTable(
        ['case', 'epoch 1 img/s', 'vs local', 'epoch 2 img/s', 'vs local', 'bytes / file size (e1 / e2)', 'GETs (e1 / e2)'],
        rows,
      ),
    );
    const json = { bench: 'object-storage', images: cfg.images, fileBytes: size, runs };
    writeResult(json, cfg.jsonFile);
  } finally {
    process.env = saved;
    child.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

export const main: BenchMain = benchMain('object-storage', HELP, parse, run);
if (isEntryPoint(import.meta.url)) runAsScript(main);

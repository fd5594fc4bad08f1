/**
 * The loader's `fastDecode` option against the default (FFCV's pixels): what the reduced
 * DCT-scale decode gains in speed and loses in fidelity, on the generated ImageNet-like set.
 *
 *   npm run bench -- loader fast-decode [--quick] [--reps N] [--epochs E] [--count N]
 *                                       [--workers W] [--batch-size B] [--json FILE]
 *
 * Files: the set stored as JPEG at maxResolution 256 (as FFCV's ImageNet configs, the
 * loader benchmark's file), and at full size (300–500 px; the source JPEGs stored as they
 * are). Pipelines: CenterCrop(64), RRC(64) + flip + CHW, RRC(160) + flip + CHW, CenterCrop(224).
 * Three measurements per (file, pipeline), exact and fast decode always back to back:
 *   loader  Loader img/s (W workers, random order): each repetition runs exact then fast,
 *           or fast then exact (alternating), warm-up epoch + E timed epochs each; the
 *           ratio is taken per pair, so a machine slowing down for a minute cancels out;
 *   thread  one thread decoding every image's crop, exact and fast alternating every 32
 *           images (the CPU cost without the loader around it);
 *   pixels  PSNR of fast vs exact over all images (same crops), worst image, mean and
 *           max |difference|, share of bytes that differ, share of images decoded at s < 1.
 * Prints a table of medians, then one JSON line ({"bench":"fast-decode",...}).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DatasetWriter, ImageFolderSource, IntField, Loader, RGBImageField } from '../core/index.js';
import { CropResizer } from '../core/loader/image-decode.js';
import { chooseScale, decodePath, describeDecodePath } from '../core/native/turbo.js';
import { centerCrop, randomResizedCrop, type Crop } from '../core/pipeline/crop.js';
import { rngFor } from '../core/pipeline/rng.js';
import {
  CenterCropRGBImageDecoder,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  ToCHW,
  type PipelineStep,
} from '../core/pipeline/spec.js';
import { DEFAULT_SEED, describe, ensureImageNetLike, progressPrinter, type ImageNetLike } from './generate-imagenet-like.js';
import { UsageError, benchMain, intSetting, nonNegativeInt, positiveInt, type BenchMain } from './lib/cli.js';
import { withCpu } from './lib/cpu.js';
import { ensureLoaderDataset } from './lib/loader-data.js';
import { preloadImages, type StoredImage } from './lib/loader-limit.js';
import { benchScratchDir } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const DEFAULT_COUNT = 1000;
const QUICK_COUNT = 200;
const SEED = 0;
const CHUNK = 32;

interface Config {
  count: number;
  seed: number;
  reps: number;
  epochs: number;
  workers: number;
  batchSize: number;
  quick: boolean;
  jsonFile: string | undefined;
}

interface Pipeline {
  name: string;
  kind: 'center' | 'rrc';
  size: number;
  steps: PipelineStep[];
}

const PIPELINES: Pipeline[] = [
  { name: 'CenterCrop(64)', kind: 'center', size: 64, steps: [CenterCropRGBImageDecoder(64)] },
  { name: 'RRC(64)+flip+CHW', kind: 'rrc', size: 64, steps: [RandomResizedCropRGBImageDecoder(64), RandomHorizontalFlip(), ToCHW()] },
  { name: 'RRC(160)+flip+CHW', kind: 'rrc', size: 160, steps: [RandomResizedCropRGBImageDecoder(160), RandomHorizontalFlip(), ToCHW()] },
  { name: 'CenterCrop(224)', kind: 'center', size: 224, steps: [CenterCropRGBImageDecoder(224)] },
];

const HELP = `usage: loader fast-decode [options]
  --quick            ${QUICK_COUNT} images, 1 repetition, 1 timed epoch (smoke test)
  --reps N           exact/fast pairs per file and pipeline (env BENCH_REPS, default 3)
  --epochs E         timed epochs per loader run, after one warm-up epoch (default 2)
  --count N          images in the generated set (env BENCH_COUNT, default ${DEFAULT_COUNT})
  --seed S           generator seed (default ${DEFAULT_SEED})
  --workers W        loader numWorkers (default 2)
  --batch-size B     default 64
  --json FILE        also write the JSON result to FILE`;

function parseConfig(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      reps: { type: 'string' },
      epochs: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      workers: { type: 'string' },
      'batch-size': { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const cfg: Config = {
    quick,
    count: intSetting(values.count, 'count', 'BENCH_COUNT', quick ? QUICK_COUNT : DEFAULT_COUNT),
    seed: values.seed === undefined ? DEFAULT_SEED : nonNegativeInt(values.seed, '--seed'),
    reps: intSetting(values.reps, 'reps', 'BENCH_REPS', quick ? 1 : 3),
    epochs: values.epochs === undefined ? (quick ? 1 : 2) : positiveInt(values.epochs, '--epochs'),
    workers: values.workers === undefined ? 2 : positiveInt(values.workers, '--workers'),
    batchSize: values['batch-size'] === undefined ? 64 : positiveInt(values['batch-size'], '--batch-size'),
    jsonFile: values.json,
  };
  if (cfg.count < cfg.batchSize) throw new UsageError(`--count ${cfg.count} is below the batch size ${cfg.batchSize}`);
  return cfg;
}

export const main: BenchMain = benchMain('loader fast-decode', HELP, parseConfig, runBenchmark);

const log = (s: string): void => void process.stderr.write(`${s}\n`);

/** The set's source JPEGs stored unchanged (pass-through): full-size images, built once and cached. */
async function ensureFullSizeFile(ds: ImageNetLike): Promise<string> {
  const m = ds.manifest;
  const dir = join(benchScratchDir(), 'loader');
  const path = join(dir, `imagenet-like-${m.count}${m.seed === 1 ? '' : `-s${m.seed}`}-jpg-full.beton`);
  const stamp = `${path}.json`;
  const want = JSON.stringify({ version: 1, count: m.count, seed: m.seed, totalBytes: m.totalBytes });
  if (!ds.generated && existsSync(path) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return path;
  await mkdir(dir, { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  const t0 = performance.now();
  const items = new ImageFolderSource(ds.root).items;
  await new DatasetWriter(
    partial,
    { image: new RGBImageField({ writeMode: 'jpg', jpegQuality: 90, passThrough: true }), label: new IntField() },
    { numWorkers: 2 },
  ).write(items.map((it) => ({ image: it.path, label: it.label })));
  await rm(stamp, { force: true });
  await rename(partial, path);
  await writeFile(stamp, want);
  log(`${path}: built in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(statSync(path).size / 1e6).toFixed(1)} MB`);
  return path;
}

/** The crop a pipeline's decoder takes of an image (the same for both decodes). */
function cropOf(p: Pipeline, im: StoredImage): Crop {
  if (p.kind === 'center') return centerCrop(im.height, im.width, 224 / 256);
  return randomResizedCrop(im.height, im.width, [0.08, 1], [3 / 4, 4 / 3], rngFor(SEED, 0, im.id, 0));
}

interface LoaderPair {
  exact: number[];
  fast: number[];
  /** fast ÷ exact medians of this pair. */
  ratio: number;
  otherCores: number;
}

async function loaderEpochs(file: string, p: Pipeline, cfg: Config, fastDecode: boolean): Promise<{ ips: number[]; other: number[] }> {
  const loader = await Loader.open(file, {
    batchSize: cfg.batchSize,
    numWorkers: cfg.workers,
    order: 'random',
    seed: SEED,
    fastDecode,
    pipelines: { image: p.steps },
  });
  const ips: number[] = [];
  const other: number[] = [];
  try {
    for (let e = 0; e <= cfg.epochs; e++) {
      const {
        value: images,
        wallMs,
        otherCores,
      } = await withCpu(async () => {
        let n = 0;
        for await (const b of loader) n += b.size;
        return n;
      });
      if (e === 0) continue; // warm-up: worker start, page cache, JIT
      ips.push(images / (wallMs / 1000));
      other.push(otherCores ?? 0);
    }
  } finally {
    await loader.close();
  }
  return { ips, other };
}

/** One thread, every image's crop, exact and fast alternating every CHUNK images. */
function threadCost(images: StoredImage[], p: Pipeline): { exactUs: number; fastUs: number } {
  const exact = new CropResizer();
  const fast = new CropResizer({ fastDecode: true });
  const dst = new Uint8Array(p.size * p.size * 3);
  const crops = images.map((im) => cropOf(p, im));
  let tExact = 0;
  let tFast = 0;
  for (let start = 0; start < images.length; start += CHUNK) {
    const end = Math.min(images.length, start + CHUNK);
    const order = (start / CHUNK) % 2 === 0 ? [exact, fast] : [fast, exact];
    for (const r of order) {
      const t0 = performance.now();
      for (let i = start; i < end; i++) {
        const im = images[i]!;
        const c = crops[i]!;
        r.run(im.raw, im.bytes, im.width, im.height, c, p.size, p.size, dst);
      }
      const dt = performance.now() - t0;
      if (r === exact) tExact += dt;
      else tFast += dt;
    }
  }
  return { exactUs: (tExact * 1000) / images.length, fastUs: (tFast * 1000) / images.length };
}

interface PixelStats {
  psnr: number;
  worstImagePsnr: number;
  medianImagePsnr: number;
  meanAbsDiff: number;
  maxAbsDiff: number;
  bytesDiffering: number;
  scaledShare: number;
}

function pixelStats(images: StoredImage[], p: Pipeline): PixelStats {
  const exact = new CropResizer();
  const fast = new CropResizer({ fastDecode: true });
  const a = new Uint8Array(p.size * p.size * 3);
  const b = new Uint8Array(a.length);
  let sse = 0;
  let sad = 0;
  let maxd = 0;
  let differ = 0;
  let scaled = 0;
  const perImage: number[] = [];
  for (const im of images) {
    const c = cropOf(p, im);
    exact.run(im.raw, im.bytes, im.width, im.height, c, p.size, p.size, a);
    fast.run(im.raw, im.bytes, im.width, im.height, c, p.size, p.size, b);
    if (!im.raw && chooseScale(c.w, c.h, p.size, p.size) < 1) scaled++;
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      const d = a[i]! - b[i]!;
      if (d === 0) continue;
      differ++;
      s += d * d;
      sad += Math.abs(d);
      if (Math.abs(d) > maxd) maxd = Math.abs(d);
    }
    sse += s;
    perImage.push(s === 0 ? Infinity : 10 * Math.log10((255 * 255) / (s / a.length)));
  }
  const n = images.length * a.length;
  return {
    psnr: sse === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sse / n)),
    worstImagePsnr: Math.min(...perImage),
    medianImagePsnr: median(perImage),
    meanAbsDiff: sad / n,
    maxAbsDiff: maxd,
    bytesDiffering: differ / n,
    scaledShare: scaled / images.length,
  };
}

interface Row {
  file: string;
  pipeline: string;
  pairs: LoaderPair[];
  thread: Array<{ exactUs: number; fastUs: number }>;
  pixels: PixelStats;
}

async function runBenchmark(cfg: Config): Promise<void> {
  const t0 = performance.now();
  const ds = await ensureImageNetLike({ count: cfg.count, seed: cfg.seed, onProgress: progressPrinter('generating images') });
  log(describe(ds));
  const files = [
    { label: 'jpg@256', path: (await ensureLoaderDataset(ds, 'jpg')).path },
    { label: 'jpg full', path: await ensureFullSizeFile(ds) },
  ];
  log(`decode path: ${describeDecodePath()}`);
  if (decodePath() !== 'turbojpeg-npm')
    log('WARNING: no libjpeg-turbo: both settings decode whole images with the system libjpeg; fastDecode changes nothing');
  const stored = new Map(files.map((f) => [f.label, preloadImages(f.path)]));
  for (const f of files) await readFile(f.path); // page cache warm for every run
  const rows: Row[] = [];
  for (const f of files)
    for (const p of PIPELINES)
      rows.push({ file: f.label, pipeline: p.name, pairs: [], thread: [], pixels: pixelStats(stored.get(f.label)!, p) });
  for (const r of rows)
    log(
      `${r.file} ${r.pipeline}: PSNR ${fmtDb(r.pixels.psnr)} dB (worst image ${fmtDb(r.pixels.worstImagePsnr)}), ${(r.pixels.scaledShare * 100).toFixed(0)}% of images at a reduced DCT scale`,
    );

  const steps = cfg.reps * rows.length;
  let step = 0;
  // Repetitions outermost, and within a pair the order alternates: drift spreads over all.
  for (let rep = 0; rep < cfg.reps; rep++) {
    for (const [fi, f] of files.entries()) {
      for (const [pi, p] of PIPELINES.entries()) {
        const row = rows[fi * PIPELINES.length + pi]!;
        const fastFirst = (rep + pi) % 2 === 1;
        const first = await loaderEpochs(f.path, p, cfg, fastFirst);
        const second = await loaderEpochs(f.path, p, cfg, !fastFirst);
        const [ex, fa] = fastFirst ? [second, first] : [first, second];
        const pair = {
          exact: ex.ips,
          fast: fa.ips,
          ratio: median(fa.ips) / median(ex.ips),
          otherCores: median([...ex.other, ...fa.other]),
        };
        row.pairs.push(pair);
        row.thread.push(threadCost(stored.get(f.label)!, p));
        const t = row.thread.at(-1)!;
        log(
          `[${++step}/${steps}] ${f.label} ${p.name}: loader exact ${ex.ips.map(fmt).join(' ')} / fast ${fa.ips.map(fmt).join(' ')} img/s (×${pair.ratio.toFixed(2)}), thread ${t.exactUs.toFixed(0)} / ${t.fastUs.toFixed(0)} µs/img, other load ${pair.otherCores.toFixed(2)} cores`,
        );
      }
    }
  }

  const table = rows.map((r) => {
    const ex = median(r.pairs.flatMap((p) => p.exact));
    const fa = median(r.pairs.flatMap((p) => p.fast));
    const te = median(r.thread.map((t) => t.exactUs));
    const tf = median(r.thread.map((t) => t.fastUs));
    return [
      r.file,
      r.pipeline,
      `${(r.pixels.scaledShare * 100).toFixed(0)}%`,
      fmt(ex),
      fmt(fa),
      `×${median(r.pairs.map((p) => p.ratio)).toFixed(2)}`,
      `${te.toFixed(0)} / ${tf.toFixed(0)}`,
      `×${(te / tf).toFixed(2)}`,
      fmtDb(r.pixels.psnr),
      fmtDb(r.pixels.worstImagePsnr),
      r.pixels.meanAbsDiff.toFixed(2),
      String(r.pixels.maxAbsDiff),
      `${(r.pixels.bytesDiffering * 100).toFixed(0)}%`,
    ];
  });
  console.log('');
  console.log(
    `fastDecode vs exact (FFCV's pixels): ${cfg.count} images, ${cfg.reps} pairs × ${cfg.epochs} timed epochs, ${cfg.workers} workers, batch ${cfg.batchSize}; medians`,
  );
  console.log(
    renderTable(
      [
        'file',
        'pipeline',
        'DCT-scaled',
        'exact img/s',
        'fast img/s',
        'paired',
        'µs/img 1 thread exact / fast',
        'thread',
        'PSNR dB',
        'worst img',
        'mean |d|',
        'max |d|',
        'bytes ≠',
      ],
      table,
    ),
  );
  console.log(
    `"paired": median over pairs of fast ÷ exact, each pair run back to back. Other load (median): ${median(rows.flatMap((r) => r.pairs.map((p) => p.otherCores))).toFixed(2)} cores. ${((performance.now() - t0) / 1000).toFixed(0)} s.`,
  );
  const json = JSON.stringify({
    bench: 'fast-decode',
    version: 1,
    config: cfg,
    decodePath: describeDecodePath(),
    rows: rows.map((r) => ({ ...r, pixels: { ...r.pixels, psnr: round(r.pixels.psnr, 2) } })),
  });
  console.log(json);
  if (cfg.jsonFile) await writeFile(cfg.jsonFile, json + '\n');
}

const fmt = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const fmtDb = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '∞');

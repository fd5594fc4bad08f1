/**
 * Loader benchmark: Loader images/s on the generated ImageNet-like set stored with
 * maxResolution 256 (write modes jpg and smart), pipeline RandomResizedCrop(160) +
 * RandomHorizontalFlip + ToCHW (uint8) with labels through IntDecoder, over a grid of
 * batch size × order × osCache × workers, against two yardsticks measured in the same run:
 *   limit  the bare native decode+crop (+ flip/CHW copy) speed of one thread (lib/loader-limit.ts);
 *   naive  a loader as users write one without a format: files + sharp, N worker threads (lib/naive-loader.ts).
 *
 *   npm run bench -- loader [--quick] [--reps N] [--epochs E] [--count N] [--modes jpg,smart]
 *                           [--batch-sizes 256,64] [--orders random,quasi_random] [--os-cache on,off]
 *                           [--workers 1,2] [--naive-epochs E] [--no-naive] [--no-breakdown] [--json FILE]
 *
 * Prints tables of medians, then one JSON line (starting with {"bench":"loader") for scripts.
 *
 *   npm run bench -- loader fast-decode [...]   the fastDecode option vs exact decode (bench/fast-decode.ts)
 *   npm run bench -- loader tabular [...]       1.28M int+float records vs FFCV: open, first batch, epoch (bench/loader-tabular.ts)
 *   npm run bench -- loader large [...]         a multi-GiB file vs a small one, osCache on/off (bench/loader-large.ts)
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { ImageFolderSource, Loader } from '../core/index.js';
import type { OrderName } from '../core/loader/orders/index.js';
import { describeDecodePath, decodePath } from '../core/native/turbo.js';
import { main as fastDecodeMain } from './fast-decode.js';
import { main as tabularMain } from './loader-tabular.js';
import { main as largeMain } from './loader-large.js';
import { DEFAULT_COUNT, DEFAULT_SEED, describe, ensureImageNetLike, progressPrinter, type ImageNetLike } from './generate-imagenet-like.js';
import {
  UsageError,
  benchMain,
  intSetting,
  isEntryPoint,
  listSetting,
  nonNegativeInt,
  positiveInt,
  runAsScript,
  type BenchMain,
} from './lib/cli.js';
import { withCpu } from './lib/cpu.js';
import {
  LOADER_MODES,
  MAX_RESOLUTION,
  SMART_THRESHOLD,
  ensureLoaderDataset,
  type LoaderDataset,
  type LoaderMode,
} from './lib/loader-data.js';
import {
  loaderPipelines,
  measureBreakdown,
  measureLimit,
  measureParallelLimit,
  preloadImages,
  type BreakdownResult,
  type LimitResult,
  type ParallelLimitResult,
  type StoredImage,
} from './lib/loader-limit.js';
import { NaiveLoader } from './lib/naive-loader.js';
import { repoRoot } from './lib/repo.js';
import { max, median, min, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const ORDERS = ['random', 'quasi_random'] as const;
type Order = (typeof ORDERS)[number];
const CACHES = ['on', 'off'] as const;
type Cache = (typeof CACHES)[number];

const OUTPUT_SIZE = 160;
const SEED = 0;
const DEFAULT_REPS = 2;
/** Per configuration and repetition: 1 warm-up epoch + 3 timed. */
const DEFAULT_EPOCHS = 4;
const DEFAULT_NAIVE_EPOCHS = 1;
const QUICK_COUNT = 600;
/** An epoch (or yardstick run) is "quiet" when the rest of the machine used at most this many cores meanwhile. */
const QUIET = 0.25;
/** The limit probe between configurations runs on every PROBE_STRIDE-th stored image (both timed epochs' crops). */
const PROBE_STRIDE = 4;
/** Issue 4's targets. */
const TARGET_LIMIT = 0.9;
const TARGET_NAIVE = 3;

interface Config {
  count: number;
  seed: number;
  reps: number;
  epochs: number;
  naiveEpochs: number;
  modes: LoaderMode[];
  batchSizes: number[];
  orders: Order[];
  caches: Cache[];
  workers: number[];
  naive: boolean;
  breakdown: boolean;
  strict: boolean;
  quick: boolean;
  jsonFile: string | undefined;
}

interface EpochRecord {
  imagesPerSec: number;
  cores: number;
  otherCores: number | null;
  /** Worker busy time / (wall × workers). */
  busy: number;
  waitMsMedian: number;
  /**
   * The limit measured right around this epoch's configuration (mean of the probes just
   * before and just after it): ratios pair each epoch with it, so slow drift of the
   * machine's speed cancels.
   */
  pairedLimit: number | null;
}

interface LoaderRun {
  mode: LoaderMode;
  batchSize: number;
  order: Order;
  cache: Cache;
  workers: number;
  warmup: EpochRecord[];
  timed: EpochRecord[];
  openSeconds: number[];
}

interface NaiveRun {
  batchSize: number;
  workers: number;
  timed: EpochRecord[];
}

const HELP = `usage: loader [options]
  --quick               ${QUICK_COUNT} images, 1 repetition, 2 epochs (1 warm-up), jpg only (smoke test)
  --reps N              repetitions of the whole grid; medians pool all timed epochs (env BENCH_REPS, default ${DEFAULT_REPS})
  --epochs E            epochs per configuration and repetition, the first one a warm-up (default ${DEFAULT_EPOCHS}, at least 2)
  --count N             images in the generated set (env BENCH_COUNT, default ${DEFAULT_COUNT})
  --seed S              generator seed (default ${DEFAULT_SEED})
  --modes LIST          write modes of the .beton, from ${LOADER_MODES.join(',')} (default both)
  --batch-sizes LIST    default 256,64
  --orders LIST         from ${ORDERS.join(',')} (default both)
  --os-cache LIST       on (memory-mapped file), off (the loader's process cache); default on,off
  --workers LIST        numWorkers values (default 1,2)
  --naive-epochs E      timed epochs of the naive loader per setting and repetition (default ${DEFAULT_NAIVE_EPOCHS})
  --no-naive            skip the naive loader (no our/naive column)
  --no-breakdown        skip the per-sample time breakdown of a worker's work
  --no-strict           the limit decodes without strict mode (the loader always decodes strict)
  --json FILE           also write the JSON result to FILE
loader fast-decode [options]: fastDecode vs exact decode (speed, PSNR); loader fast-decode --help`;

function intList(value: string | undefined, flag: string, fallback: number[]): number[] {
  if (value === undefined) return fallback;
  const items = value.split(',').map((s) => positiveInt(s.trim() === '' ? 'empty' : s.trim(), `--${flag}`));
  if (new Set(items).size !== items.length) throw new UsageError(`--${flag} has duplicates`);
  return items;
}

function parseConfig(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      reps: { type: 'string' },
      epochs: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      modes: { type: 'string' },
      'batch-sizes': { type: 'string' },
      orders: { type: 'string' },
      'os-cache': { type: 'string' },
      workers: { type: 'string' },
      'naive-epochs': { type: 'string' },
      'no-naive': { type: 'boolean' },
      'no-breakdown': { type: 'boolean' },
      'no-strict': { type: 'boolean' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const epochs = values.epochs === undefined ? (quick ? 2 : DEFAULT_EPOCHS) : positiveInt(values.epochs, '--epochs');
  if (epochs < 2) throw new UsageError('--epochs must be at least 2 (the first one is a warm-up)');
  const cfg: Config = {
    quick,
    count: intSetting(values.count, 'count', 'BENCH_COUNT', quick ? QUICK_COUNT : DEFAULT_COUNT),
    seed: values.seed === undefined ? DEFAULT_SEED : nonNegativeInt(values.seed, '--seed'),
    reps: intSetting(values.reps, 'reps', 'BENCH_REPS', quick ? 1 : DEFAULT_REPS),
    epochs,
    naiveEpochs: values['naive-epochs'] === undefined ? DEFAULT_NAIVE_EPOCHS : positiveInt(values['naive-epochs'], '--naive-epochs'),
    modes: [...new Set(listSetting<LoaderMode>(values.modes, 'modes', LOADER_MODES, quick ? ['jpg'] : LOADER_MODES))],
    batchSizes: intList(values['batch-sizes'], 'batch-sizes', [256, 64]),
    orders: [...new Set(listSetting(values.orders, 'orders', ORDERS, ORDERS))],
    caches: [...new Set(listSetting(values['os-cache'], 'os-cache', CACHES, CACHES))],
    workers: intList(values.workers, 'workers', [1, 2]),
    naive: !(values['no-naive'] ?? false),
    breakdown: !(values['no-breakdown'] ?? false),
    strict: !(values['no-strict'] ?? false),
    jsonFile: values.json,
  };
  const smallest = Math.max(...cfg.batchSizes);
  if (cfg.count < smallest)
    throw new UsageError(`--count ${cfg.count} is below batch size ${smallest}: with dropLast no batch would be made`);
  return cfg;
}

const gridMain: BenchMain = benchMain('loader', HELP, parseConfig, runBenchmark);
/** `loader fast-decode …` is the fastDecode vs exact comparison (bench/fast-decode.ts); anything else the grid. */
export const main: BenchMain = (argv) =>
  argv[0] === 'fast-decode'
    ? fastDecodeMain(argv.slice(1))
    : argv[0] === 'tabular'
      ? tabularMain(argv.slice(1))
      : argv[0] === 'large'
        ? largeMain(argv.slice(1))
        : gridMain(argv);

/** CPU the rest of the machine took during each timed segment. */
class ForeignLoad {
  readonly runs: Array<{ label: string; cores: number }> = [];

  record(label: string, cores: number | null): void {
    if (cores !== null) this.runs.push({ label, cores });
  }

  summary(): { median: number; max: number; worst: string; overQuarter: number; segments: number } | null {
    if (this.runs.length === 0) return null;
    const worst = this.runs.reduce((a, b) => (b.cores > a.cores ? b : a));
    return {
      median: round(median(this.runs.map((r) => r.cores)), 2),
      max: round(worst.cores, 2),
      worst: worst.label,
      overQuarter: this.runs.filter((r) => r.cores > 0.25).length,
      segments: this.runs.length,
    };
  }
}

/**
 * The code being measured: the commit, and whether core/ or native/ differ from it (numbers
 * for uncommitted code are not that commit's). BENCH_CODE overrides (e.g. for a snapshot).
 */
function codeVersion(): string {
  if (process.env['BENCH_CODE']) return process.env['BENCH_CODE'];
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', args, { cwd: repoRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'core', 'native')
      .split('\n')
      .filter((l) => l !== '').length;
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ` + ${dirty} uncommitted change(s) in core/ or native/` : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

const log = (line: string): void => void process.stderr.write(line + '\n');
const fmt = (v: number, digits = 0): string => v.toFixed(digits);
const cpuNote = (cores: number, other: number | null): string =>
  `${cores.toFixed(2)} cores busy` + (other === null ? '' : `, other load ${other.toFixed(2)}`);
const configKey = (mode: LoaderMode, bs: number, order: Order, cache: Cache, w: number): string => `${mode}|${bs}|${order}|${cache}|${w}`;

async function runBenchmark(cfg: Config): Promise<void> {
  const tStart = performance.now();
  const ds = await ensureImageNetLike({ count: cfg.count, seed: cfg.seed, onProgress: progressPrinter('generating images') });
  log(describe(ds));
  const files = new Map<LoaderMode, LoaderDataset>();
  for (const mode of cfg.modes) {
    const f = await ensureLoaderDataset(ds, mode);
    log(
      `${f.path}: ${f.mix.jpg} jpg / ${f.mix.raw} raw, ${(f.fileSize / 1e6).toFixed(1)} MB; ${f.built ? `built in ${f.buildSeconds.toFixed(1)} s` : 'reused'}`,
    );
    files.set(mode, f);
  }
  log(`decode path: ${describeDecodePath()}`);
  if (decodePath() !== 'turbojpeg-npm') log('WARNING: the loader runs on the sharp fallback; every number below measures that path');
  log(`code: ${codeVersion()}`);

  const stored = new Map<LoaderMode, StoredImage[]>();
  for (const mode of cfg.modes) stored.set(mode, preloadImages(files.get(mode)!.path));
  const items = new ImageFolderSource(ds.root).items;
  // Page cache: every run reads files from memory, not the first one from disk.
  for (const f of files.values()) await readFile(f.path);
  // Untimed: JIT and library warm-up of the limit loop.
  for (const mode of cfg.modes)
    measureLimit(stored.get(mode)!.slice(0, 200), { size: OUTPUT_SIZE, seed: SEED, epochs: [0], strict: cfg.strict });

  const noise = new ForeignLoad();
  const rec: Records = {
    limits: new Map(cfg.modes.map((m) => [m, []])),
    probes: new Map(cfg.modes.map((m) => [m, []])),
    parallel: new Map(),
    runs: new Map(),
    naive: new Map(),
  };
  const timedEpochs = Array.from({ length: cfg.epochs - 1 }, (_, i) => i + 1);
  const limitOptions = { size: OUTPUT_SIZE, seed: SEED, epochs: timedEpochs.slice(0, 2), strict: cfg.strict };
  const parallelCounts = cfg.workers.filter((w) => w > 1);
  const perRep =
    cfg.modes.length * (1 + parallelCounts.length + cfg.batchSizes.length * cfg.orders.length * cfg.caches.length * cfg.workers.length) +
    (cfg.naive ? cfg.batchSizes.length * cfg.workers.length : 0);
  const steps = cfg.reps * perRep;
  let step = 0;

  // Repetitions outermost: drift (thermal, a neighbour's load) spreads over all configurations.
  for (let rep = 1; rep <= cfg.reps; rep++) {
    for (const mode of cfg.modes) {
      const file = files.get(mode)!.path;
      const { value: lim, cores, otherCores } = await withCpu(async () => measureLimit(stored.get(mode)!, limitOptions));
      noise.record(`limit ${mode} rep ${rep}`, otherCores);
      rec.limits.get(mode)!.push({ ...lim, cores, other: otherCores });
      log(
        `[${++step}/${steps}] rep ${rep} limit ${mode}: ${fmt(lim.imagesPerSec)} img/s per thread (decode only ${fmt(lim.decodeOnlyPerSec)}; µs/img params ${lim.us.params.toFixed(1)}, decode ${lim.us.decode.toFixed(0)}, flip+CHW ${lim.us.copy.toFixed(0)}), ${cpuNote(cores, otherCores)}`,
      );
      for (const t of parallelCounts) {
        const { value: par, otherCores: other } = await withCpu(() => measureParallelLimit(file, t, limitOptions, lim.imagesPerSec));
        noise.record(`limit x${t} ${mode} rep ${rep}`, other);
        const key = `${mode}|${t}`;
        rec.parallel.set(key, [...(rec.parallel.get(key) ?? []), { ...par, other }]);
        log(
          `[${++step}/${steps}] rep ${rep} limit ${mode} on ${t} threads at once: ${fmt(par.imagesPerSec)} img/s (${fmt(par.efficiency, 2)} of ${t} x one thread)${other === null ? '' : `, other load ${other.toFixed(2)}`}`,
        );
      }
      // A short limit probe between configurations: each configuration's ratios use the mean
      // of the probes just before and after it (the machine's speed drifts by tens of % over
      // minutes on a shared host, invisibly to the other-load reading).
      const probeSet = stored.get(mode)!.filter((_, i) => i % PROBE_STRIDE === 0);
      const probe = (): number => {
        const v = measureLimit(probeSet, limitOptions).imagesPerSec;
        rec.probes.get(mode)!.push(v);
        return v;
      };
      let lastProbe = probe();
      for (const bs of cfg.batchSizes) {
        for (const order of cfg.orders) {
          for (const cache of cfg.caches) {
            for (const w of cfg.workers) {
              const key = configKey(mode, bs, order, cache, w);
              let run = rec.runs.get(key);
              if (!run)
                rec.runs.set(key, (run = { mode, batchSize: bs, order, cache, workers: w, warmup: [], timed: [], openSeconds: [] }));
              await runLoader(file, run, cfg, noise, rep);
              const next = probe();
              const last = run.timed.slice(-(cfg.epochs - 1));
              for (const e of [...last, run.warmup.at(-1)!]) e.pairedLimit = (lastProbe + next) / 2;
              lastProbe = next;
              log(
                `[${++step}/${steps}] rep ${rep} ${mode} bs ${bs} ${order} osCache ${cache} w${w}: warm-up ${fmt(run.warmup.at(-1)!.imagesPerSec)}, timed ${last.map((e) => fmt(e.imagesPerSec)).join(' ')} img/s; busy ${fmt(median(last.map((e) => e.busy)) * 100)}%, ${cpuNote(median(last.map((e) => e.cores)), median(last.map((e) => e.otherCores ?? 0)))}`,
              );
            }
          }
        }
      }
    }
    if (cfg.naive) {
      for (const bs of cfg.batchSizes) {
        for (const w of cfg.workers) {
          const key = `${bs}|${w}`;
          let run = rec.naive.get(key);
          if (!run) rec.naive.set(key, (run = { batchSize: bs, workers: w, timed: [] }));
          await runNaive(items, run, cfg, noise, rep);
          const last = run.timed.slice(-cfg.naiveEpochs);
          log(
            `[${++step}/${steps}] rep ${rep} naive bs ${bs} w${w}: ${last.map((e) => fmt(e.imagesPerSec)).join(' ')} img/s, ${cpuNote(median(last.map((e) => e.cores)), median(last.map((e) => e.otherCores ?? 0)))}`,
          );
        }
      }
    }
  }

  const breakdowns = new Map<LoaderMode, BreakdownResult>();
  if (cfg.breakdown) {
    for (const mode of cfg.modes) {
      const { value: b, otherCores } = await withCpu(async () =>
        measureBreakdown(files.get(mode)!.path, stored.get(mode)!, { ...limitOptions, batchSize: cfg.batchSizes[0]! }),
      );
      noise.record(`breakdown ${mode}`, otherCores);
      breakdowns.set(mode, b);
      log(
        `breakdown ${mode}: loader ${b.us.total.toFixed(0)} µs/sample (decode ${b.us.decode.toFixed(0)}, ${b.stage} ${b.us.pixelStage.toFixed(0)}), limit ${b.limit.total.toFixed(0)} (decode ${b.limit.decode.toFixed(0)}, flip+CHW ${b.limit.copy.toFixed(0)})${otherCores === null ? '' : `, other load ${otherCores.toFixed(2)}`}`,
      );
    }
  }

  const totalS = (performance.now() - tStart) / 1000;
  const views = [summarize(cfg, rec, 'all'), summarize(cfg, rec, 'quiet')];
  console.log('');
  console.log(printReport(cfg, ds, files, views, rec, breakdowns, noise, totalS));
  const json = JSON.stringify(toJson(cfg, ds, files, views, rec, breakdowns, noise, totalS));
  console.log(json);
  if (cfg.jsonFile) await writeFile(cfg.jsonFile, json + '\n');
}

async function runLoader(file: string, run: LoaderRun, cfg: Config, noise: ForeignLoad, rep: number): Promise<void> {
  const t0 = performance.now();
  const loader = await Loader.open(file, {
    batchSize: run.batchSize,
    numWorkers: run.workers,
    order: run.order as OrderName,
    osCache: run.cache === 'on',
    seed: SEED,
    pipelines: loaderPipelines(OUTPUT_SIZE),
  });
  run.openSeconds.push((performance.now() - t0) / 1000);
  try {
    for (let e = 0; e < cfg.epochs; e++) {
      const before = loader.stats();
      const {
        value: images,
        wallMs,
        cores,
        otherCores,
      } = await withCpu(async () => {
        let n = 0;
        for await (const b of loader) n += b.size;
        return n;
      });
      const after = loader.stats();
      const rec: EpochRecord = {
        imagesPerSec: (images / wallMs) * 1000,
        cores,
        otherCores,
        busy: (after.workerBusyMs - before.workerBusyMs) / (wallMs * run.workers),
        waitMsMedian: median(after.waitMs.slice(before.waitMs.length)),
        pairedLimit: null,
      };
      if (e === 0) run.warmup.push(rec);
      else {
        run.timed.push(rec);
        noise.record(`${run.mode} bs${run.batchSize} ${run.order} ${run.cache} w${run.workers} rep ${rep} epoch ${e}`, otherCores);
      }
    }
  } finally {
    await loader.close();
  }
}

async function runNaive(
  items: ReadonlyArray<{ path: string; label: number }>,
  run: NaiveRun,
  cfg: Config,
  noise: ForeignLoad,
  rep: number,
): Promise<void> {
  const loader = await NaiveLoader.open(items, { workers: run.workers, batchSize: run.batchSize, size: OUTPUT_SIZE, seed: SEED });
  try {
    // Warm-up (untimed): one batch per worker, so each worker's JIT and sharp are loaded.
    for await (const _ of loader.epoch(0, run.workers));
    for (let e = 1; e <= cfg.naiveEpochs; e++) {
      const busy0 = loader.busyMs;
      const {
        value: images,
        wallMs,
        cores,
        otherCores,
      } = await withCpu(async () => {
        let n = 0;
        for await (const b of loader.epoch(e)) n += b.labels.length;
        return n;
      });
      run.timed.push({
        imagesPerSec: (images / wallMs) * 1000,
        cores,
        otherCores,
        busy: (loader.busyMs - busy0) / (wallMs * run.workers),
        waitMsMedian: 0,
        pairedLimit: null,
      });
      noise.record(`naive bs${run.batchSize} w${run.workers} rep ${rep} epoch ${e}`, otherCores);
    }
  } finally {
    await loader.close();
  }
}

interface Records {
  limits: Map<LoaderMode, Array<LimitResult & { cores: number; other: number | null }>>;
  /** Limit probes (img/s per thread) between configurations, per mode. */
  probes: Map<LoaderMode, number[]>;
  /** Key `${mode}|${threads}`. */
  parallel: Map<string, Array<ParallelLimitResult & { other: number | null }>>;
  runs: Map<string, LoaderRun>;
  /** Key `${batchSize}|${workers}`. */
  naive: Map<string, NaiveRun>;
}

type ViewName = 'all' | 'quiet';

interface Cell {
  mode: LoaderMode;
  batchSize: number;
  order: Order;
  cache: Cache;
  workers: number;
  imagesPerSec: number;
  warmupPerSec: number | null;
  /** Timed epochs the median is over, of all. */
  epochs: number;
  of: number;
  busy: number;
  cores: number;
  other: number | null;
  overLimit: number | null;
  overParallel: number | null;
  overNaive: number | null;
  overW1: number | null;
}

/** Medians over all timed epochs ('all'), or over those with at most QUIET cores of other load ('quiet'). */
interface View {
  name: ViewName;
  limit: Map<LoaderMode, number | null>;
  parallel: Map<string, number | null>;
  naive: Map<string, number | null>;
  cells: Cell[];
}

const isQuiet = (other: number | null): boolean => other !== null && other <= QUIET;
const medianOrNull = (xs: number[]): number | null => (xs.length ? median(xs) : null);

function summarize(cfg: Config, rec: Records, name: ViewName): View {
  const keep = <T extends { other?: number | null; otherCores?: number | null }>(xs: T[]): T[] =>
    name === 'all' ? xs : xs.filter((x) => isQuiet(x.other ?? x.otherCores ?? null));
  const limit = new Map([...rec.limits].map(([m, l]) => [m, medianOrNull(keep(l).map((x) => x.imagesPerSec))]));
  const parallel = new Map([...rec.parallel].map(([k, l]) => [k, medianOrNull(keep(l).map((x) => x.imagesPerSec))]));
  const naive = new Map([...rec.naive].map(([k, r]) => [k, medianOrNull(keep(r.timed).map((e) => e.imagesPerSec))]));
  const ips = (r: LoaderRun | undefined): number | null => (r ? medianOrNull(keep(r.timed).map((e) => e.imagesPerSec)) : null);
  const cells: Cell[] = [];
  for (const r of rec.runs.values()) {
    const timed = keep(r.timed);
    const v = ips(r);
    if (v === null) continue;
    // Each epoch against the limit probed around its configuration; the parallel limit as
    // that times the parallel efficiency measured in the same repetitions.
    const eff = r.workers > 1 ? medianOrNull((rec.parallel.get(`${r.mode}|${r.workers}`) ?? []).map((x) => x.efficiency)) : 1;
    const paired = timed.filter((e) => e.pairedLimit !== null);
    const overLimit = medianOrNull(paired.map((e) => e.imagesPerSec / (e.pairedLimit! * r.workers)));
    const nv = naive.get(`${r.batchSize}|${r.workers}`) ?? null;
    const w1 = cfg.workers.includes(1) && r.workers > 1 ? ips(rec.runs.get(configKey(r.mode, r.batchSize, r.order, r.cache, 1))) : null;
    const others = timed.map((e) => e.otherCores).filter((x): x is number => x !== null);
    cells.push({
      mode: r.mode,
      batchSize: r.batchSize,
      order: r.order,
      cache: r.cache,
      workers: r.workers,
      imagesPerSec: v,
      warmupPerSec: medianOrNull(keep(r.warmup).map((e) => e.imagesPerSec)),
      epochs: timed.length,
      of: r.timed.length,
      busy: median(timed.map((e) => e.busy)),
      cores: median(timed.map((e) => e.cores)),
      other: others.length ? median(others) : null,
      overLimit,
      overParallel: overLimit === null || eff === null ? null : overLimit / eff,
      overNaive: nv === null ? null : v / nv,
      overW1: w1 === null ? null : v / w1,
    });
  }
  return { name, limit, parallel, naive, cells };
}

const cellText = (v: number | null, digits = 2): string => (v === null ? '-' : fmt(v, digits));

function printReport(
  cfg: Config,
  ds: ImageNetLike,
  files: Map<LoaderMode, LoaderDataset>,
  views: View[],
  rec: Records,
  breakdowns: Map<LoaderMode, BreakdownResult>,
  noise: ForeignLoad,
  totalS: number,
): string {
  const m = ds.manifest;
  const L: string[] = [];
  L.push(
    `loader benchmark: ${m.count} images (${m.minSide}-${m.maxSide} px JPEG q${m.quality} sources) stored with maxResolution ${MAX_RESOLUTION}:`,
  );
  for (const f of files.values())
    L.push(
      `  ${f.mode.padEnd(5)} ${f.mix.jpg} jpg / ${f.mix.raw} raw, ${(f.fileSize / 1e6).toFixed(1)} MB${f.mode === 'smart' ? ` (smartThreshold ${SMART_THRESHOLD} B = 256x224x3)` : ''}`,
    );
  L.push(
    `  pipeline: image RandomResizedCrop(${OUTPUT_SIZE}) + RandomHorizontalFlip + ToCHW (uint8), label IntDecoder; seed ${SEED}, dropLast`,
  );
  L.push(`  decode path: ${describeDecodePath()}`);
  L.push(`  code: ${codeVersion()}`);
  L.push(
    `  ${cfg.reps} repetition(s) x ${cfg.epochs} epochs per configuration (first = warm-up, reported apart); img/s = median of the ${cfg.reps * (cfg.epochs - 1)} timed epochs`,
  );
  L.push(
    `  ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}`,
  );
  L.push('');
  L.push(...yardsticks(cfg, views, rec));
  // The quiet table only when some timed segment was not quiet (else it repeats the first).
  const loaded = (noise.summary()?.max ?? 0) > QUIET;
  for (const v of loaded ? views : views.slice(0, 1)) {
    L.push('');
    L.push(...grid(cfg, v));
  }
  if (breakdowns.size > 0) {
    L.push('');
    L.push(...breakdownReport(cfg, views[0]!, breakdowns));
  }
  L.push('');
  const all = views[0]!.cells;
  const spread = (c: Cell): number => {
    const t = rec.runs.get(configKey(c.mode, c.batchSize, c.order, c.cache, c.workers))!.timed.map((e) => e.imagesPerSec);
    return (max(t) - min(t)) / c.imagesPerSec;
  };
  const worst = all.reduce((a, b) => (spread(b) > spread(a) ? b : a), all[0]!);
  if (worst)
    L.push(
      `epoch-to-epoch spread, (max-min)/median: worst ${fmt(spread(worst) * 100)}% (${worst.mode} bs ${worst.batchSize} ${worst.order} ${worst.cache} w${worst.workers})`,
    );
  const other = noise.summary();
  if (other) {
    L.push(
      `other load during timed segments (other processes + hypervisor steal): median ${fmt(other.median, 2)}, max ${fmt(other.max, 2)} cores (${other.worst}); ${other.overQuarter}/${other.segments} segments above ${QUIET}`,
    );
    if (other.max > QUIET)
      L.push(
        '  WARNING: the machine was not idle; segments that shared it are slower (medians damp, not remove, this; see the quiet table), and 2-worker runs suffer most on 2 cores',
      );
  }
  L.push(`total benchmark time ${fmt(totalS, 1)} s`);
  return L.join('\n');
}

function yardsticks(cfg: Config, views: View[], rec: Records): string[] {
  const [all, quiet] = views as [View, View];
  const L: string[] = [`yardsticks (medians over repetitions; quiet = only runs with other load <= ${QUIET} core):`];
  const rows: string[][] = [];
  for (const [mode, l] of rec.limits) {
    const med = (f: (x: LimitResult) => number): number => median(l.map(f));
    rows.push([
      `limit ${mode}: decode+crop+flip/CHW, 1 thread`,
      fmt(all.limit.get(mode)!),
      cellText(quiet.limit.get(mode) ?? null, 0),
      `decode only ${fmt(med((x) => x.decodeOnlyPerSec))}/s; µs/img: crop params ${med((x) => x.us.params).toFixed(1)}, decode+resize ${med((x) => x.us.decode).toFixed(0)}, native flip+CHW ${med((x) => x.us.copy).toFixed(0)}${cfg.strict ? '; strict' : ''}`,
    ]);
    const probes = rec.probes.get(mode)!;
    if (probes.length) {
      rows.push([
        `limit ${mode}: probes between configs`,
        fmt(median(probes)),
        '',
        `${probes.length} probes on every ${PROBE_STRIDE}th image, range ${fmt(min(probes))}-${fmt(max(probes))}: the machine's drift; /limit pairs each config with its neighbours`,
      ]);
    }
    for (const [k, p] of rec.parallel) {
      if (!k.startsWith(`${mode}|`)) continue;
      const t = p[0]!.threads;
      rows.push([
        `limit ${mode}: ${t} threads at once`,
        fmt(all.parallel.get(k)!),
        cellText(quiet.parallel.get(k) ?? null, 0),
        `${fmt(median(p.map((x) => x.efficiency)), 2)} of ${t} x one thread (what the machine gives ${t} threads)`,
      ]);
    }
  }
  for (const [k, r] of rec.naive) {
    const v = all.naive.get(k)!;
    rows.push([
      `naive bs ${r.batchSize}, ${r.workers} worker${r.workers > 1 ? 's' : ''}`,
      fmt(v),
      cellText(quiet.naive.get(k) ?? null, 0),
      `${fmt(v / r.workers)}/s per worker; readFile + sharp metadata/extract/resize/flop + CHW collate, ${fmt(median(r.timed.map((e) => e.cores)), 2)} cores busy`,
    ]);
  }
  L.push(renderTable(['yardstick', 'img/s', 'quiet', 'notes'], rows));
  return L;
}

function grid(cfg: Config, v: View): string[] {
  const L: string[] = [];
  if (v.name === 'all') {
    L.push(
      `our loader, all timed epochs (img/s medians; /limit = ours / (limit x workers), target >= ${TARGET_LIMIT}, each epoch against the limit probed around its config;`,
    );
    L.push(`/plim = /limit / the parallel efficiency of that many threads at once (ours against the limit on that many threads);`);
    L.push(`/naive = ours / naive at the same batch size and workers, target >= ${TARGET_NAIVE}; 2w/1w: linear = 2):`);
  } else {
    L.push(
      `our loader, quiet epochs only (other load <= ${QUIET} core; ratios against quiet yardsticks; '-' = no quiet run; n = quiet epochs / all):`,
    );
  }
  const ws = cfg.workers;
  const headers = ['mode', 'batch', 'order', 'osCache'];
  for (const w of ws)
    headers.push(
      `w${w} img/s`,
      `w${w} warm`,
      `w${w}/limit`,
      ...(w > 1 ? [`w${w}/plim`] : []),
      ...(cfg.naive ? [`w${w}/naive`] : []),
      `w${w} busy`,
    );
  const scaled = ws.includes(1) ? ws.filter((w) => w > 1) : [];
  for (const w of scaled) headers.push(`${w}w/1w`);
  headers.push(v.name === 'all' ? 'other load' : 'n');
  const rows: string[][] = [];
  const groups: Array<[LoaderMode, number, Order, Cache]> = [];
  for (const mode of cfg.modes)
    for (const bs of cfg.batchSizes) for (const order of cfg.orders) for (const cache of cfg.caches) groups.push([mode, bs, order, cache]);
  for (const [mode, bs, order, cache] of groups) {
    const g = v.cells.filter((c) => c.mode === mode && c.batchSize === bs && c.order === order && c.cache === cache);
    const row = [mode, String(bs), order, cache];
    for (const w of ws) {
      const c = g.find((x) => x.workers === w);
      const width = 4 + (w > 1 ? 1 : 0) + (cfg.naive ? 1 : 0);
      if (!c) {
        row.push(...Array<string>(width).fill('-'));
        continue;
      }
      row.push(
        fmt(c.imagesPerSec),
        c.warmupPerSec === null ? '-' : fmt(c.warmupPerSec),
        cellText(c.overLimit),
        ...(w > 1 ? [cellText(c.overParallel)] : []),
        ...(cfg.naive ? [cellText(c.overNaive)] : []),
        `${fmt(c.busy * 100)}%`,
      );
    }
    for (const w of scaled) row.push(cellText(g.find((x) => x.workers === w)?.overW1 ?? null));
    if (v.name === 'all') {
      const others = g.map((x) => x.other).filter((x): x is number => x !== null);
      row.push(others.length ? fmt(max(others), 2) : '');
    } else row.push(g.map((c) => `${c.epochs}/${c.of}`).join(',') || '0');
    rows.push(row);
  }
  L.push(renderTable(headers, rows));
  if (v.name === 'all')
    L.push(
      "  busy = loader workers' busy time / (wall x workers), the rest idle (message round trips, dispatch, epoch ends); other load = max over the row of each config's median, in cores",
    );
  L.push(...verdict(cfg, v));
  return L;
}

function verdict(cfg: Config, v: View): string[] {
  const L: string[] = [`targets (${v.name === 'all' ? 'all epochs' : 'quiet epochs'}):`];
  const range = (xs: number[]): string =>
    xs.length ? `range ${fmt(min(xs), 2)}-${fmt(max(xs), 2)}, median ${fmt(median(xs), 2)}` : 'no data';
  for (const w of cfg.workers) {
    const ol = v.cells.filter((c) => c.workers === w && c.overLimit !== null).map((c) => c.overLimit!);
    L.push(
      `  our/limit >= ${TARGET_LIMIT} at ${w} worker${w > 1 ? 's' : ''}: ${ol.filter((x) => x >= TARGET_LIMIT).length}/${ol.length} configs (${range(ol)})`,
    );
    if (w > 1) {
      const op = v.cells.filter((c) => c.workers === w && c.overParallel !== null).map((c) => c.overParallel!);
      L.push(
        `    against the ${w}-thread limit measured at once (what this machine allows): ${op.filter((x) => x >= TARGET_LIMIT).length}/${op.length} configs >= ${TARGET_LIMIT} (${range(op)})`,
      );
    }
  }
  const sc = v.cells.filter((c) => c.overW1 !== null).map((c) => c.overW1!);
  if (sc.length) L.push(`  worker scaling 2w/1w (linear = 2.00): ${range(sc)}`);
  const nv = v.cells.filter((c) => c.overNaive !== null).map((c) => c.overNaive!);
  if (nv.length)
    L.push(`  our/naive >= ${TARGET_NAIVE}: ${nv.filter((x) => x >= TARGET_NAIVE).length}/${nv.length} configs (${range(nv)})`);
  return L;
}

/**
 * Where a worker's time goes, per image: the limit's steps and the loader's per-sample code,
 * timed in one interleaved loop, then the w1 loader runs' measured busy and wall time.
 */
function breakdownReport(cfg: Config, v: View, breakdowns: Map<LoaderMode, BreakdownResult>): string[] {
  const L: string[] = [];
  L.push(
    "where a worker's time goes, µs per image, one thread: 'loader' = decode-worker.ts runSample rebuilt from core pieces and timed step by step,",
  );
  L.push("'limit' = the limit's steps, in the same loop (interleaved sample by sample, so both see the same machine):");
  const modes = [...breakdowns.keys()];
  const headers = ['step', ...modes.flatMap((m) => [`${m} limit`, `${m} loader`])];
  const line = (label: string, f: (b: BreakdownResult) => [number | null, number | null], digits = 1): string[] => [
    label,
    ...modes.flatMap((m) => f(breakdowns.get(m)!).map((x) => (x === null ? '' : x.toFixed(digits)))),
  ];
  const stage = breakdowns.values().next().value?.stage ?? 'fused stage';
  const rows = [
    line('metadata view (fieldMetadata)', (b) => [null, b.us.metadata]),
    line('heap ref (heapRef + mmap view)', (b) => [null, b.us.heapRef]),
    line('rng creation (limit: + crop params)', (b) => [b.limit.params, b.us.rng]),
    line('decode+crop+resize (loader: decoder.decode)', (b) => [b.limit.decode, b.us.decode]),
    line(`flip+CHW (loader: ${stage})`, (b) => [b.limit.copy, b.us.pixelStage]),
    line('label (IntDecoder: metadata, ref, rng, write)', (b) => [null, b.us.label]),
    line('row views (viewOf x2)', (b) => [null, b.us.rowViews]),
    line('total', (b) => [b.limit.total, b.us.total]),
    line('limit / loader (this loop)', (b) => [null, b.limit.total / b.us.total], 2),
  ];
  if (cfg.workers.includes(1)) {
    const w1 = (mode: LoaderMode): Cell[] => v.cells.filter((c) => c.mode === mode && c.workers === 1);
    rows.push([
      'loader w1 runs: worker busy per image (median)',
      ...modes.flatMap((m) => ['', fmt(median(w1(m).map((c) => (c.busy * 1e6) / c.imagesPerSec)), 1)]),
    ]);
    rows.push([
      'loader w1 runs: wall per image (median)',
      ...modes.flatMap((m) => ['', fmt(median(w1(m).map((c) => 1e6 / c.imagesPerSec)), 1)]),
    ]);
  }
  L.push(renderTable(headers, rows));
  L.push(
    "  limit's crop params = 2 rngs + randomResizedCrop; the loader draws its crop inside decoder.decode and the flip inside the stage",
  );
  // Drift-free estimate: per-sample work ratio from the interleaved loop, times the share of
  // wall time the workers were busy (the rest is idle: messages, dispatch, epoch ends).
  for (const w of cfg.workers) {
    const parts = modes.map((m) => {
      const b = breakdowns.get(m)!;
      const busy = medianOrNull(v.cells.filter((c) => c.mode === m && c.workers === w).map((c) => c.busy));
      return busy === null
        ? `${m} -`
        : `${m} ${fmt((b.limit.total / b.us.total) * busy, 2)} (${fmt(b.limit.total / b.us.total, 2)} x busy ${fmt(busy * 100)}%)`;
    });
    L.push(
      `  drift-free estimate of our/${w > 1 ? 'plim' : 'limit'} at ${w} worker${w > 1 ? 's' : ''} = limit/loader per-sample work x worker busy: ${parts.join('; ')}`,
    );
  }
  return L;
}

function toJson(
  cfg: Config,
  ds: ImageNetLike,
  files: Map<LoaderMode, LoaderDataset>,
  views: View[],
  rec: Records,
  breakdowns: Map<LoaderMode, BreakdownResult>,
  noise: ForeignLoad,
  totalS: number,
): Record<string, unknown> {
  const m = ds.manifest;
  const r1 = (v: number): number => round(v, 1);
  const r3 = (v: number | null): number | null => (v === null ? null : round(v, 3));
  const epoch = (e: EpochRecord): Record<string, unknown> => ({
    img_per_s: r1(e.imagesPerSec),
    otherLoad: e.otherCores === null ? null : round(e.otherCores, 2),
    busy: round(e.busy, 3),
    pairedLimit: e.pairedLimit === null ? null : r1(e.pairedLimit),
  });
  return {
    bench: 'loader',
    version: 1,
    date: new Date().toISOString(),
    env: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
      sharp: sharp.versions.sharp,
      vips: sharp.versions.vips,
      decodePath: decodePath(),
      decodePathDetail: describeDecodePath(),
      code: codeVersion(),
    },
    config: {
      count: m.count,
      seed: m.seed,
      maxResolution: MAX_RESOLUTION,
      outputSize: OUTPUT_SIZE,
      reps: cfg.reps,
      epochs: cfg.epochs,
      naiveEpochs: cfg.naiveEpochs,
      quick: cfg.quick,
      strictLimit: cfg.strict,
      quietThreshold: QUIET,
      files: [...files.values()].map((f) => ({ mode: f.mode, mix: f.mix, fileSize: f.fileSize })),
    },
    limit: Object.fromEntries(
      [...rec.limits].map(([mode, l]) => [
        mode,
        {
          runs: l.map((x) => ({
            img_per_s: r1(x.imagesPerSec),
            decodeOnly: r1(x.decodeOnlyPerSec),
            usPerImage: { params: r1(x.us.params), decode: r1(x.us.decode), copy: r1(x.us.copy) },
            otherLoad: x.other === null ? null : round(x.other, 2),
          })),
          probes: rec.probes.get(mode)!.map(r1),
          parallel: [...rec.parallel]
            .filter(([k]) => k.startsWith(`${mode}|`))
            .map(([, p]) => ({
              threads: p[0]!.threads,
              runs: p.map((x) => ({
                img_per_s: r1(x.imagesPerSec),
                efficiency: round(x.efficiency, 3),
                otherLoad: x.other === null ? null : round(x.other, 2),
              })),
            })),
        },
      ]),
    ),
    naive: [...rec.naive.values()].map((r) => ({ batchSize: r.batchSize, workers: r.workers, epochs: r.timed.map(epoch) })),
    runs: [...rec.runs.values()].map((r) => ({
      mode: r.mode,
      batchSize: r.batchSize,
      order: r.order,
      osCache: r.cache === 'on',
      workers: r.workers,
      epochs: r.timed.map(epoch),
      warmup: r.warmup.map(epoch),
      openSeconds: r.openSeconds.map((x) => round(x, 3)),
    })),
    summary: Object.fromEntries(
      views.map((v) => [
        v.name,
        {
          limit: Object.fromEntries([...v.limit].map(([k, x]) => [k, x === null ? null : r1(x)])),
          parallelLimit: Object.fromEntries([...v.parallel].map(([k, x]) => [k, x === null ? null : r1(x)])),
          naive: Object.fromEntries([...v.naive].map(([k, x]) => [k, x === null ? null : r1(x)])),
          results: v.cells.map((c) => ({
            mode: c.mode,
            batchSize: c.batchSize,
            order: c.order,
            osCache: c.cache === 'on',
            workers: c.workers,
            median_img_per_s: r1(c.imagesPerSec),
            epochsUsed: c.epochs,
            overLimit: r3(c.overLimit),
            overParallelLimit: r3(c.overParallel),
            overNaive: r3(c.overNaive),
            overW1: r3(c.overW1),
            workerBusy: round(c.busy, 3),
            coresBusy: round(c.cores, 2),
          })),
        },
      ]),
    ),
    breakdown: Object.fromEntries(
      [...breakdowns].map(([mode, b]) => [
        mode,
        {
          stage: b.stage,
          usPerImage: Object.fromEntries(Object.entries(b.us).map(([k, v]) => [k, r1(v)])),
          limitUsPerImage: Object.fromEntries(Object.entries(b.limit).map(([k, v]) => [k, r1(v)])),
        },
      ]),
    ),
    targets: { overLimit: TARGET_LIMIT, overNaive: TARGET_NAIVE },
    otherLoadCores: noise.summary(),
    totalSeconds: round(totalS, 1),
  };
}

if (isEntryPoint(import.meta.url)) runAsScript(main);

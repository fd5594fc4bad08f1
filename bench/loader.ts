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
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ImageFolderSource, Loader } from '../core/index.js';
import type { OrderName } from '../core/loader/orders/index.js';
import { describeDecodePath, decodePath } from '../core/native/turbo.js';
import { main as fastDecodeMain } from './fast-decode.js';
import { main as tabularMain } from './loader-tabular.js';
import { main as largeMain } from './loader-large.js';
import { DEFAULT_COUNT, DEFAULT_SEED, describe, ensureImageNetLike, progressPrinter } from './generate-imagenet-like.js';
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
import { LOADER_MODES, ensureLoaderDataset, type LoaderDataset, type LoaderMode } from './lib/loader-data.js';
import {
  loaderPipelines,
  measureBreakdown,
  measureLimit,
  measureParallelLimit,
  preloadImages,
  type BreakdownResult,
  type StoredImage,
} from './lib/loader-limit.js';
import { NaiveLoader } from './lib/naive-loader.js';
import { median } from './lib/stats.js';
import {
  ORDERS,
  CACHES,
  OUTPUT_SIZE,
  SEED,
  DEFAULT_REPS,
  DEFAULT_EPOCHS,
  DEFAULT_NAIVE_EPOCHS,
  QUICK_COUNT,
  PROBE_STRIDE,
  type Config,
  type EpochRecord,
  type LoaderRun,
  type NaiveRun,
  ForeignLoad,
  codeVersion,
  log,
  fmt,
  cpuNote,
  configKey,
  type Records,
} from './lib/loader-grid.js';
import { summarize, printReport, toJson } from './lib/loader-report.js';

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

if (isEntryPoint(import.meta.url)) runAsScript(main);

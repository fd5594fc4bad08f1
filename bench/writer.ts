/**
 * Writer benchmark: DatasetWriter samples/s for each write mode and worker count, against
 * the bare encode step (decode → resize → JPEG on one thread, no writer), on a synthetic
 * ImageNet-like folder. Two parts:
 *   capped       every write mode at maxResolution 256 (FFCV's ImageNet setting);
 *   passthrough  write mode 'jpg' at source size (maxResolution null), passThrough off vs on:
 *                what storing qualifying source JPEGs unchanged saves over decode + re-encode.
 *
 *   npm run bench -- writer [--quick] [--reps N] [--count N] [--only capped,passthrough]
 *                           [--modes raw,jpg,smart] [--workers 1,2] [--smart-threshold B]
 *                           [--max-resolution P] [--seed S] [--json FILE]
 *   npm run bench -- writer --vs-ffcv [--rounds R] [--count N] [--workers 1,2] [--python PY]
 *                           (ours against FFCV's own writer: bench/writer-vs-ffcv.ts)
 *
 * Prints tables of medians, then one JSON line (starting with {"bench":"writer") for scripts.
 */
import { availableParallelism, cpus } from 'node:os';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { DEFAULT_PAGE_SIZE, DatasetWriter, ImageFolderSource, type RGBImageFieldOptions, type WriteReport } from '../core/index.js';
import { native } from '../core/native/beton-addon.js';
import { DEFAULT_SEED, describe, ensureImageNetLike, progressPrinter, type ImageNetLike } from './generate-imagenet-like.js';
import { bareEncode, bareProbe, type BareEncodeResult, type EncodeSettings } from './lib/bare-encode.js';
import { withCpu } from './lib/cpu.js';
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
import { benchScratchDir } from './lib/repo.js';
import { max, median, min, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';
import { runVsFfcv, type VsFfcvConfig } from './writer-vs-ffcv.js';

const MODES = ['raw', 'jpg', 'smart'] as const;
type Mode = (typeof MODES)[number];
/** capped: all modes at maxResolution (the original table); passthrough: 'jpg' uncapped, passThrough off/on. */
const PARTS = ['capped', 'passthrough'] as const;
type Part = (typeof PARTS)[number];

const DEFAULT_COUNT = 3000;
const QUICK_COUNT = 200;
const DEFAULT_REPS = 3;
/** FFCV's ImageNet training sets are written with max_resolution 256; raw files stay ~150 KB/image. */
const DEFAULT_MAX_RESOLUTION = 256;
const JPEG_QUALITY = 90;
/**
 * With 300–500 px sides capped at 256, the short side lands between ~153 and 256 px
 * (median ~220), so a threshold of a 256×224 raw image stores a bit under half as JPEG:
 * a real mix. FFCV's usual 'smart' thresholds assume uncapped images and would give all-raw here.
 */
const DEFAULT_SMART_THRESHOLD = 256 * 224 * 3;

interface Config {
  count: number;
  seed: number;
  reps: number;
  parts: Part[];
  modes: Mode[];
  workers: number[];
  maxResolution: number;
  smartThreshold: number;
  quick: boolean;
  jsonFile: string | undefined;
}

interface ModeResult {
  mode: Mode;
  mix: { raw: number; jpg: number };
  fileSize: number;
  bare: { imagesPerSec: number[]; msPerImage: BareEncodeResult['msPerImage'][]; cores: number[] };
  /** Per repetition, keyed by worker count: samples/s and process-wide cores busy. */
  writer: Map<number, { samplesPerSec: number[]; cores: number[] }>;
}

/**
 * Pass-through part, one per passThrough setting. The bare step is what one worker does
 * per image: off = read + decode + JPEG encode at source size; on = probePassThrough
 * (read, header checks, strict verify decode).
 */
interface PassThroughResult {
  passThrough: boolean;
  /** Writer's counts (identical every repetition; checked). */
  stored: { raw: number; jpg: number; passThrough: number };
  fileSize: number;
  /** JPEG bytes stored in the heap (the file size moves in whole 8 MiB pages). */
  imageBytes: number;
  bare: { imagesPerSec: number[]; cores: number[] };
  writer: Map<number, { samplesPerSec: number[]; cores: number[] }>;
}

const DEFAULT_ROUNDS = 3;
/** The reference FFCV is installed for Debian's interpreter, not a pyenv python3 on PATH. */
const DEFAULT_PYTHON = '/usr/bin/python3';
const DEFAULT_STAGE_IMAGES = 500;

const HELP = `usage: writer [options]
  --quick               ${QUICK_COUNT} images, 1 repetition, no warm-up (smoke test)
  --reps N              repetitions per configuration; the median is reported (env BENCH_REPS, default ${DEFAULT_REPS})
  --count N             images in the generated set (env BENCH_COUNT, default ${DEFAULT_COUNT})
  --seed S              generator seed (default ${DEFAULT_SEED})
  --only LIST           parts to run, from ${PARTS.join(',')} (default both):
                          capped: --modes at --max-resolution; passthrough: 'jpg' at source size, passThrough off vs on
  --modes LIST          write modes of the capped part, from ${MODES.join(',')} (default all)
  --workers LIST        numWorkers values; 0 = encode on the calling thread (default 1,2)
  --smart-threshold B   'smart' stores JPEG above B raw bytes (default ${DEFAULT_SMART_THRESHOLD} = 256x224x3)
  --max-resolution P    longer-side cap for every mode of the capped part (default ${DEFAULT_MAX_RESOLUTION}; passthrough never caps)
  --json FILE           also write the JSON result to FILE
  --vs-ffcv             instead: ours against FFCV's own DatasetWriter (jpg, --max-resolution, quality ${JPEG_QUALITY}) on one
                        source, alternating ours/FFCV for each worker count, --rounds rounds (default ${DEFAULT_ROUNDS}); sha256 check
  --rounds R            --vs-ffcv rounds (default ${DEFAULT_ROUNDS})
  --python PY           --vs-ffcv: the interpreter with FFCV installed (default ${DEFAULT_PYTHON})
  --stage-images N      --vs-ffcv: images timed step by step on one thread (default ${DEFAULT_STAGE_IMAGES})`;

function parseConfig(argv: string[]): Config | VsFfcvConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      reps: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      only: { type: 'string' },
      modes: { type: 'string' },
      workers: { type: 'string' },
      'smart-threshold': { type: 'string' },
      'max-resolution': { type: 'string' },
      json: { type: 'string' },
      'vs-ffcv': { type: 'boolean' },
      rounds: { type: 'string' },
      python: { type: 'string' },
      'stage-images': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values['vs-ffcv']) {
    for (const flag of ['quick', 'reps', 'only', 'modes', 'smart-threshold'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} does not apply to --vs-ffcv`);
    }
    const workers = (values.workers ?? '1,2').split(',').map((w) => positiveInt(w.trim(), '--workers'));
    if (new Set(workers).size !== workers.length) throw new UsageError('--workers has duplicates');
    return {
      count: intSetting(values.count, 'count', 'BENCH_COUNT', DEFAULT_COUNT),
      seed: values.seed === undefined ? DEFAULT_SEED : nonNegativeInt(values.seed, '--seed'),
      rounds: values.rounds === undefined ? DEFAULT_ROUNDS : positiveInt(values.rounds, '--rounds'),
      workers,
      maxResolution:
        values['max-resolution'] === undefined ? DEFAULT_MAX_RESOLUTION : positiveInt(values['max-resolution'], '--max-resolution'),
      quality: JPEG_QUALITY,
      python: values.python ?? DEFAULT_PYTHON,
      stageImages: values['stage-images'] === undefined ? DEFAULT_STAGE_IMAGES : positiveInt(values['stage-images'], '--stage-images'),
      jsonFile: values.json,
    };
  }
  const quick = values.quick ?? false;
  const workers = (values.workers ?? '1,2').split(',').map((w) => nonNegativeInt(w.trim() === '' ? 'empty' : w.trim(), '--workers'));
  if (new Set(workers).size !== workers.length) throw new UsageError('--workers has duplicates');
  return {
    quick,
    count: intSetting(values.count, 'count', 'BENCH_COUNT', quick ? QUICK_COUNT : DEFAULT_COUNT),
    reps: intSetting(values.reps, 'reps', 'BENCH_REPS', quick ? 1 : DEFAULT_REPS),
    seed: values.seed === undefined ? DEFAULT_SEED : nonNegativeInt(values.seed, '--seed'),
    parts: [...new Set(listSetting(values.only, 'only', PARTS, PARTS))],
    modes: listSetting(values.modes, 'modes', MODES, MODES),
    workers,
    maxResolution:
      values['max-resolution'] === undefined ? DEFAULT_MAX_RESOLUTION : positiveInt(values['max-resolution'], '--max-resolution'),
    smartThreshold:
      values['smart-threshold'] === undefined ? DEFAULT_SMART_THRESHOLD : nonNegativeInt(values['smart-threshold'], '--smart-threshold'),
    jsonFile: values.json,
  };
}

export const main: BenchMain = benchMain('writer', HELP, parseConfig, (cfg) => ('rounds' in cfg ? runVsFfcv(cfg) : runBenchmark(cfg)));

async function runBenchmark(cfg: Config): Promise<void> {
  const tStart = performance.now();
  const ds = await ensureImageNetLike({ count: cfg.count, seed: cfg.seed, onProgress: progressPrinter('generating images') });
  console.log(describe(ds));
  const source = new ImageFolderSource(ds.root);
  const allSamples: FolderSamples = [...source];
  const paths = allSamples.map((s) => s.image.path);
  const outDir = join(benchScratchDir(), 'out');
  await mkdir(outDir, { recursive: true });
  const capped = cfg.parts.includes('capped');
  const passthrough = cfg.parts.includes('passthrough');

  // Every configuration must read the sources from memory, not the first one from disk.
  for (const p of paths) await readFile(p);
  if (!cfg.quick) await warmUp(source, outDir, cfg);

  const results = new Map<Mode, ModeResult>(
    (capped ? cfg.modes : []).map((mode) => [
      mode,
      { mode, mix: { raw: 0, jpg: 0 }, fileSize: 0, bare: { imagesPerSec: [], msPerImage: [], cores: [] }, writer: workerMap(cfg) },
    ]),
  );
  const pass = new Map<boolean, PassThroughResult>(
    (passthrough ? [false, true] : []).map((pt) => [
      pt,
      {
        passThrough: pt,
        stored: { raw: 0, jpg: 0, passThrough: 0 },
        fileSize: 0,
        imageBytes: 0,
        bare: { imagesPerSec: [], cores: [] },
        writer: workerMap(cfg),
      },
    ]),
  );
  const runs = cfg.reps * (results.size + pass.size) * (1 + cfg.workers.length);
  const noise = new ForeignLoad();
  let run = 0;
  // Repetitions outermost: slow drift (thermal, a neighbour's load) spreads over all
  // configurations instead of biasing whichever ran last.
  for (let rep = 1; rep <= cfg.reps; rep++) {
    for (const mode of results.keys()) {
      const r = results.get(mode)!;
      const { value: bare, cores: bareCores, otherCores: bareOther } = await withCpu(() => bareEncode(paths, settings(cfg, mode)));
      noise.record(`${mode} bare rep ${rep}`, bareOther);
      r.bare.imagesPerSec.push(bare.imagesPerSec);
      r.bare.msPerImage.push(bare.msPerImage);
      r.bare.cores.push(bareCores);
      log(`[${++run}/${runs}] rep ${rep} ${mode} bare encode: ${bare.imagesPerSec.toFixed(1)} images/s, ${cpuNote(bareCores, bareOther)}`);
      for (const w of cfg.workers) {
        const {
          value: report,
          cores,
          otherCores,
        } = await withCpu(() => writeOnce(source, allSamples, outDir, cappedOptions(cfg, mode), w, `${mode}-w${w}`));
        noise.record(`${mode} w${w} rep ${rep}`, otherCores);
        r.writer.get(w)!.samplesPerSec.push(report.samplesPerSec);
        r.writer.get(w)!.cores.push(cores);
        const modes = report.imageModes['image'] ?? { raw: 0, jpg: 0 };
        if (modes.raw !== bare.mix.raw || modes.jpg !== bare.mix.jpg) {
          throw new Error(
            `${mode}: the writer stored ${modes.raw} raw/${modes.jpg} jpg but the bare encode chose ${bare.mix.raw}/${bare.mix.jpg}; bench/lib/bare-encode.ts no longer mirrors RGBImageField`,
          );
        }
        r.mix = { raw: modes.raw, jpg: modes.jpg };
        r.fileSize = report.fileSize;
        log(
          `[${++run}/${runs}] rep ${rep} ${mode} writer numWorkers=${w}: ${report.samplesPerSec.toFixed(1)} samples/s, ${cpuNote(cores, otherCores)}`,
        );
      }
    }
    for (const [pt, r] of pass) {
      const label = `jpg uncapped passThrough=${pt ? 'on' : 'off'}`;
      const {
        value: bare,
        cores: bareCores,
        otherCores: bareOther,
      } = await withCpu(async () => (pt ? bareProbe(paths, null) : { ...(await bareEncode(paths, passSettings())), passed: 0 }));
      noise.record(`passThrough ${pt ? 'on' : 'off'} bare rep ${rep}`, bareOther);
      r.bare.imagesPerSec.push(bare.imagesPerSec);
      r.bare.cores.push(bareCores);
      log(
        `[${++run}/${runs}] rep ${rep} ${label} bare ${pt ? 'probe' : 'encode'}: ${bare.imagesPerSec.toFixed(1)} images/s${pt ? ` (${bare.passed}/${paths.length} qualify)` : ''}, ${cpuNote(bareCores, bareOther)}`,
      );
      for (const w of cfg.workers) {
        const {
          value: report,
          cores,
          otherCores,
        } = await withCpu(() => writeOnce(source, allSamples, outDir, passOptions(pt), w, `pt-${pt ? 'on' : 'off'}-w${w}`));
        noise.record(`passThrough ${pt ? 'on' : 'off'} w${w} rep ${rep}`, otherCores);
        r.writer.get(w)!.samplesPerSec.push(report.samplesPerSec);
        r.writer.get(w)!.cores.push(cores);
        const modes = report.imageModes['image'] ?? { raw: 0, jpg: 0, passThrough: 0 };
        // Mode 'jpg' stores every image as JPEG; pass-through takes exactly what the probe accepts.
        const wantPassed = pt ? bare.passed : 0;
        if (modes.jpg !== paths.length || modes.raw !== 0 || modes.passThrough !== wantPassed) {
          throw new Error(
            `${label} w${w}: the writer stored ${modes.raw} raw/${modes.jpg} jpg with ${modes.passThrough} passed through; expected 0/${paths.length} with ${wantPassed} (what probePassThrough accepts inline)`,
          );
        }
        r.stored = { raw: modes.raw, jpg: modes.jpg, passThrough: modes.passThrough };
        r.fileSize = report.fileSize;
        r.imageBytes = report.heapBytes['image'] ?? 0;
        log(
          `[${++run}/${runs}] rep ${rep} ${label} writer numWorkers=${w}: ${report.samplesPerSec.toFixed(1)} samples/s, ${modes.passThrough} passed through, ${cpuNote(cores, otherCores)}`,
        );
      }
    }
  }
  await rm(outDir, { recursive: true, force: true });

  const totalS = (performance.now() - tStart) / 1000;
  console.log('');
  console.log(printReport(cfg, ds, [...results.values()], [...pass.values()], noise, totalS));
  const json = JSON.stringify(toJson(cfg, ds, [...results.values()], [...pass.values()], noise, totalS));
  console.log(json);
  if (cfg.jsonFile) await writeFile(cfg.jsonFile, json + '\n');
}

function workerMap(cfg: Config): Map<number, { samplesPerSec: number[]; cores: number[] }> {
  return new Map(cfg.workers.map((w) => [w, { samplesPerSec: [], cores: [] }]));
}

function settings(cfg: Config, mode: Mode): EncodeSettings {
  return { mode, maxResolution: cfg.maxResolution, jpegQuality: JPEG_QUALITY, smartThreshold: cfg.smartThreshold };
}

/** The pass-through part's bare encode (passThrough off): decode + JPEG encode at source size. */
function passSettings(): EncodeSettings {
  return { mode: 'jpg', maxResolution: null, jpegQuality: JPEG_QUALITY, smartThreshold: 0 };
}

function cappedOptions(cfg: Config, mode: Mode): RGBImageFieldOptions {
  return {
    writeMode: mode,
    maxResolution: cfg.maxResolution,
    jpegQuality: JPEG_QUALITY,
    smartThreshold: mode === 'smart' ? cfg.smartThreshold : null,
  };
}

/** No cap, so every qualifying source JPEG can pass through (a resize would rule it out). */
function passOptions(passThrough: boolean): RGBImageFieldOptions {
  return { writeMode: 'jpg', maxResolution: null, jpegQuality: JPEG_QUALITY, passThrough };
}

/** Items of an ImageFolderSource, as the writer receives them (an array has the `length` it uses). */
type FolderSamples = ReadonlyArray<{ image: { path: string }; label: number }>;

async function writeOnce(
  source: ImageFolderSource,
  samples: FolderSamples,
  outDir: string,
  image: RGBImageFieldOptions,
  numWorkers: number,
  tag: string,
): Promise<WriteReport> {
  const schema = source.schema(image);
  const out = join(outDir, `writer-${tag}.beton`);
  try {
    return await new DatasetWriter(out, schema, { numWorkers }).write(samples);
  } finally {
    // Raw files are ~150 KB per image; keep the disk and the page cache clear between runs.
    await rm(out, { force: true });
  }
}

/**
 * Untimed: loads the native addon and sharp, and lets the JIT compile the hot paths
 * (main-thread placement included), so the first timed configuration is not penalised.
 */
async function warmUp(source: ImageFolderSource, outDir: string, cfg: Config): Promise<void> {
  const n = Math.min(100, source.length);
  const subset = [...source].slice(0, n);
  const subPaths = subset.map((s) => s.image.path);
  if (cfg.parts.includes('capped')) {
    for (const mode of cfg.modes) await bareEncode(subPaths, settings(cfg, mode));
    for (const w of cfg.workers) await writeOnce(source, subset, outDir, cappedOptions(cfg, 'jpg'), w, `warmup-w${w}`);
  }
  if (cfg.parts.includes('passthrough')) {
    await bareEncode(subPaths, passSettings());
    await bareProbe(subPaths, null);
    for (const pt of [false, true])
      for (const w of cfg.workers) await writeOnce(source, subset, outDir, passOptions(pt), w, `warmup-pt-w${w}`);
  }
}

function cpuNote(cores: number, otherCores: number | null): string {
  return `${cores.toFixed(2)} cores busy` + (otherCores === null ? '' : `, other load ${otherCores.toFixed(2)}`);
}

/** CPU the rest of the machine took during each timed run: the benchmark's noise floor. */
class ForeignLoad {
  private readonly runs: Array<{ label: string; cores: number }> = [];

  record(label: string, cores: number | null): void {
    if (cores !== null) this.runs.push({ label, cores });
  }

  summary(): { median: number; max: number; worst: string } | null {
    if (this.runs.length === 0) return null;
    const worst = this.runs.reduce((a, b) => (b.cores > a.cores ? b : a));
    return { median: round(median(this.runs.map((r) => r.cores)), 2), max: round(worst.cores, 2), worst: worst.label };
  }
}

function log(line: string): void {
  process.stderr.write(line + '\n');
}

const fmt = (v: number, digits = 1): string => v.toFixed(digits);

/** Human-readable report: configuration, the tables of each part, spread, other load. */
function printReport(
  cfg: Config,
  ds: ImageNetLike,
  results: ModeResult[],
  pass: PassThroughResult[],
  noise: ForeignLoad,
  totalS: number,
): string {
  const m = ds.manifest;
  const lines: string[] = [];
  lines.push(
    `writer benchmark: ${m.count} images, ${m.classes} classes, ${m.minSide}-${m.maxSide} px sources (JPEG q${m.quality}, ${(m.totalBytes / 1e6).toFixed(1)} MB)`,
  );
  lines.push(`  parts: ${cfg.parts.join(', ')}; writer defaults otherwise (pageSize ${DEFAULT_PAGE_SIZE / 2 ** 20} MiB, chunkSize 100)`);
  lines.push(
    `  median of ${cfg.reps} run${cfg.reps === 1 ? '' : 's'} per configuration; ratios are ratios of medians; ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'})`,
  );
  if (results.length > 0) {
    lines.push('');
    lines.push(...cappedReport(cfg, results));
  }
  if (pass.length > 0) {
    lines.push('');
    lines.push(...passThroughReport(cfg, ds, pass));
  }
  lines.push('');
  const spread = worstSpread(results, pass);
  if (cfg.reps > 1 && spread) lines.push(`run-to-run spread, (max-min)/median: worst ${fmt(spread.value * 100)}% (${spread.where})`);
  const other = noise.summary();
  if (other) {
    lines.push(
      `other load during timed runs (other processes + hypervisor steal): median ${fmt(other.median, 2)}, max ${fmt(other.max, 2)} cores (${other.worst})`,
    );
    if (other.max > 0.25)
      lines.push('  WARNING: the machine was not idle; runs that shared it are slower (the median damps, not removes, this)');
  }
  lines.push(`total benchmark time ${fmt(totalS)} s`);
  return lines.join('\n');
}

/** The original tables: every mode at maxResolution, main table, per-step table, cores. */
function cappedReport(cfg: Config, results: ModeResult[]): string[] {
  const lines: string[] = [];
  lines.push(
    `== capped: maxResolution ${cfg.maxResolution} for ALL modes (as FFCV's ImageNet configs; keeps raw files reasonable), jpegQuality ${JPEG_QUALITY},`,
  );
  lines.push(`   smartThreshold ${cfg.smartThreshold} B (a ${describeThreshold(cfg)} raw image)`);
  lines.push('');
  const headers = ['mode', 'stored raw/jpg', 'file MB', 'bare img/s'];
  for (const w of cfg.workers) headers.push(`w${w} samples/s`, `w${w}/bare`);
  const base = cfg.workers.includes(1) ? 1 : undefined;
  const scaled = cfg.workers.filter((w) => base !== undefined && w > base);
  for (const w of scaled) headers.push(`w${w}/w1`);
  const rows = results.map((r) => {
    const bare = median(r.bare.imagesPerSec);
    const row = [r.mode, `${r.mix.raw}/${r.mix.jpg}`, fmt(r.fileSize / 1e6), fmt(bare)];
    for (const w of cfg.workers) {
      const sps = median(r.writer.get(w)!.samplesPerSec);
      row.push(fmt(sps), fmt(sps / bare, 2));
    }
    for (const w of scaled) row.push(fmt(median(r.writer.get(w)!.samplesPerSec) / median(r.writer.get(1)!.samplesPerSec), 2));
    return row;
  });
  lines.push(renderTable(headers, rows));
  lines.push('');
  lines.push('bare encode step, one thread, mean ms/image (medians over runs); decode includes reading the file:');
  lines.push(
    renderTable(
      ['mode', 'read + decode', 'resize (area)', 'jpeg encode', 'total ms', 'img/s'],
      results.map((r) => {
        const d = median(r.bare.msPerImage.map((x) => x.decode));
        const z = median(r.bare.msPerImage.map((x) => x.resize));
        const e = median(r.bare.msPerImage.map((x) => x.encode));
        return [r.mode, fmt(d, 2), fmt(z, 2), fmt(e, 2), fmt(d + z + e, 2), fmt(median(r.bare.imagesPerSec))];
      }),
    ),
  );
  lines.push('');
  lines.push(`CPU cores busy, process-wide (user+system time / wall time; medians; this machine has ${availableParallelism()}):`);
  lines.push(
    renderTable(
      ['mode', 'bare', ...cfg.workers.map((w) => `writer w${w}`)],
      results.map((r) => [r.mode, fmt(median(r.bare.cores), 2), ...cfg.workers.map((w) => fmt(median(r.writer.get(w)!.cores), 2))]),
    ),
  );
  return lines;
}

/**
 * Pass-through table: one row per setting, then the on/off ratio row (speed-up in the
 * samples/s columns, size ratio in the file column).
 */
function passThroughReport(cfg: Config, ds: ImageNetLike, pass: PassThroughResult[]): string[] {
  const lines: string[] = [];
  const n = ds.manifest.count;
  lines.push(
    `== passthrough: write mode jpg, maxResolution null (no resize, so pass-through applies), jpegQuality ${JPEG_QUALITY}; sources ${(ds.manifest.totalBytes / 1e6).toFixed(1)} MB`,
  );
  lines.push(
    '   bare (one thread, no writer): off = read + decode (loadRGB) + JPEG encode at source size; on = probePassThrough (read, header checks, strict verify decode)',
  );
  lines.push(
    '   JPEG MB = image bytes stored (on: the source files byte for byte); the file grows in whole 8 MiB pages; on/off row: speed-up in the samples/s columns',
  );
  lines.push('');
  const headers = ['passThrough', 'passed through', 'JPEG MB', 'file MB', 'bare img/s'];
  for (const w of cfg.workers) headers.push(`w${w} samples/s`, `w${w}/bare`);
  const scaled = cfg.workers.includes(1) ? cfg.workers.filter((w) => w > 1) : [];
  for (const w of scaled) headers.push(`w${w}/w1`);
  const rows = pass.map((r) => {
    const bare = median(r.bare.imagesPerSec);
    const row = [r.passThrough ? 'on' : 'off', `${r.stored.passThrough}/${n}`, fmt(r.imageBytes / 1e6), fmt(r.fileSize / 1e6), fmt(bare)];
    for (const w of cfg.workers) {
      const sps = median(r.writer.get(w)!.samplesPerSec);
      row.push(fmt(sps), fmt(sps / bare, 2));
    }
    for (const w of scaled) row.push(fmt(median(r.writer.get(w)!.samplesPerSec) / median(r.writer.get(1)!.samplesPerSec), 2));
    return row;
  });
  const off = pass.find((r) => !r.passThrough);
  const on = pass.find((r) => r.passThrough);
  if (off && on) {
    const ratio = (a: number[], b: number[]): string => `${fmt(median(a) / median(b), 2)}x`;
    const row = [
      'on/off',
      '',
      `${fmt(on.imageBytes / off.imageBytes, 2)}x`,
      `${fmt(on.fileSize / off.fileSize, 2)}x`,
      ratio(on.bare.imagesPerSec, off.bare.imagesPerSec),
    ];
    for (const w of cfg.workers) row.push(ratio(on.writer.get(w)!.samplesPerSec, off.writer.get(w)!.samplesPerSec), '');
    for (const _ of scaled) row.push('');
    rows.push(row);
  }
  lines.push(renderTable(headers, rows));
  lines.push('');
  lines.push('CPU cores busy, process-wide (medians):');
  lines.push(
    renderTable(
      ['passThrough', 'bare', ...cfg.workers.map((w) => `writer w${w}`)],
      pass.map((r) => [
        r.passThrough ? 'on' : 'off',
        fmt(median(r.bare.cores), 2),
        ...cfg.workers.map((w) => fmt(median(r.writer.get(w)!.cores), 2)),
      ]),
    ),
  );
  return lines;
}

function describeThreshold(cfg: Config): string {
  const rows = cfg.smartThreshold / (cfg.maxResolution * 3);
  return Number.isInteger(rows) ? `${cfg.maxResolution}x${rows}` : `~${cfg.maxResolution}x${rows.toFixed(0)}`;
}

function worstSpread(results: ModeResult[], pass: PassThroughResult[]): { value: number; where: string } | null {
  let worst: { value: number; where: string } | null = null;
  const consider = (values: number[], where: string): void => {
    const value = (max(values) - min(values)) / median(values);
    if (!worst || value > worst.value) worst = { value, where };
  };
  for (const r of results) {
    consider(r.bare.imagesPerSec, `${r.mode} bare`);
    for (const [w, v] of r.writer) consider(v.samplesPerSec, `${r.mode} w${w}`);
  }
  for (const r of pass) {
    const pt = `passThrough ${r.passThrough ? 'on' : 'off'}`;
    consider(r.bare.imagesPerSec, `${pt} bare`);
    for (const [w, v] of r.writer) consider(v.samplesPerSec, `${pt} w${w}`);
  }
  return worst;
}

/** The machine-readable record: every repetition, the medians and the ratios. */
function toJson(
  cfg: Config,
  ds: ImageNetLike,
  results: ModeResult[],
  pass: PassThroughResult[],
  noise: ForeignLoad,
  totalS: number,
): Record<string, unknown> {
  const m = ds.manifest;
  const pixels = m.images.reduce((s, im) => s + im.width * im.height, 0);
  return {
    bench: 'writer',
    version: 2,
    date: new Date().toISOString(),
    env: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
      sharp: sharp.versions.sharp,
      vips: sharp.versions.vips,
      jpegLibrary: native.jpegLibrary,
    },
    config: {
      count: m.count,
      classes: m.classes,
      seed: m.seed,
      sourceSides: [m.minSide, m.maxSide],
      sourceQuality: m.quality,
      sourceBitsPerPixel: round((m.totalBytes * 8) / pixels, 2),
      reps: cfg.reps,
      quick: cfg.quick,
      parts: cfg.parts,
      maxResolution: cfg.maxResolution,
      jpegQuality: JPEG_QUALITY,
      smartThreshold: cfg.smartThreshold,
      workers: cfg.workers,
    },
    results: results.map((r) => {
      const bare = median(r.bare.imagesPerSec);
      const writer: Record<string, unknown> = {};
      const ratios: Record<string, number> = {};
      for (const [w, v] of r.writer) {
        writer[`w${w}`] = {
          median: round(median(v.samplesPerSec)),
          runs: v.samplesPerSec.map((x) => round(x)),
          coresBusy: round(median(v.cores), 2),
        };
        ratios[`w${w}_over_bare`] = round(median(v.samplesPerSec) / bare, 3);
      }
      const w1 = r.writer.get(1);
      for (const [w, v] of r.writer)
        if (w1 && w > 1) ratios[`w${w}_over_w1`] = round(median(v.samplesPerSec) / median(w1.samplesPerSec), 3);
      return {
        mode: r.mode,
        stored: r.mix,
        fileSize: r.fileSize,
        bareImagesPerSec: {
          median: round(bare),
          runs: r.bare.imagesPerSec.map((x) => round(x)),
          coresBusy: round(median(r.bare.cores), 2),
        },
        bareMsPerImage: {
          decode: round(median(r.bare.msPerImage.map((x) => x.decode)), 3),
          resize: round(median(r.bare.msPerImage.map((x) => x.resize)), 3),
          encode: round(median(r.bare.msPerImage.map((x) => x.encode)), 3),
        },
        writerSamplesPerSec: writer,
        ratios,
      };
    }),
    passThrough: passThroughJson(cfg, pass),
    otherLoadCores: noise.summary(),
    totalSeconds: round(totalS),
  };
}

/** The pass-through part's record (null when not run): per setting, then the on/off ratios. */
function passThroughJson(cfg: Config, pass: PassThroughResult[]): Record<string, unknown> | null {
  if (pass.length === 0) return null;
  const off = pass.find((r) => !r.passThrough);
  const on = pass.find((r) => r.passThrough);
  const speedUp: Record<string, number> = {};
  if (off && on) {
    speedUp['bare'] = round(median(on.bare.imagesPerSec) / median(off.bare.imagesPerSec), 3);
    for (const w of cfg.workers)
      speedUp[`w${w}`] = round(median(on.writer.get(w)!.samplesPerSec) / median(off.writer.get(w)!.samplesPerSec), 3);
  }
  return {
    writeMode: 'jpg',
    maxResolution: null,
    jpegQuality: JPEG_QUALITY,
    settings: pass.map((r) => {
      const writer: Record<string, unknown> = {};
      for (const [w, v] of r.writer)
        writer[`w${w}`] = {
          median: round(median(v.samplesPerSec)),
          runs: v.samplesPerSec.map((x) => round(x)),
          coresBusy: round(median(v.cores), 2),
        };
      return {
        passThrough: r.passThrough,
        stored: r.stored,
        fileSize: r.fileSize,
        imageBytes: r.imageBytes,
        bareImagesPerSec: {
          median: round(median(r.bare.imagesPerSec)),
          runs: r.bare.imagesPerSec.map((x) => round(x)),
          coresBusy: round(median(r.bare.cores), 2),
        },
        writerSamplesPerSec: writer,
      };
    }),
    speedUpOnOverOff: off && on ? speedUp : null,
    fileSizeOnOverOff: off && on ? round(on.fileSize / off.fileSize, 3) : null,
    imageBytesOnOverOff: off && on ? round(on.imageBytes / off.imageBytes, 3) : null,
  };
}

if (isEntryPoint(import.meta.url)) runAsScript(main);

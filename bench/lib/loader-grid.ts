/**
 * The loader bench's grid: its settings, records of each run, the machine's other load and
 * the views the report is made from (bench/loader.ts runs it, bench/lib/loader-report.ts prints it).
 */
import { execFileSync } from 'node:child_process';
import { type LoaderMode } from './loader-data.js';
import { type LimitResult, type ParallelLimitResult } from './loader-limit.js';
import { repoRoot } from './repo.js';
import { median, round } from './stats.js';

export const ORDERS = ['random', 'quasi_random'] as const;
export type Order = (typeof ORDERS)[number];
export const CACHES = ['on', 'off'] as const;
export type Cache = (typeof CACHES)[number];

export const OUTPUT_SIZE = 160;
export const SEED = 0;
export const DEFAULT_REPS = 2;
/** Per configuration and repetition: 1 warm-up epoch + 3 timed. */
export const DEFAULT_EPOCHS = 4;
export const DEFAULT_NAIVE_EPOCHS = 1;
export const QUICK_COUNT = 600;
/** An epoch (or yardstick run) is "quiet" when the rest of the machine used at most this many cores meanwhile. */
export const QUIET = 0.25;
/** The limit probe between configurations runs on every PROBE_STRIDE-th stored image (both timed epochs' crops). */
export const PROBE_STRIDE = 4;
/** Issue 4's targets. */
export const TARGET_LIMIT = 0.9;
export const TARGET_NAIVE = 3;

export interface Config {
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

export interface EpochRecord {
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

export interface LoaderRun {
  mode: LoaderMode;
  batchSize: number;
  order: Order;
  cache: Cache;
  workers: number;
  warmup: EpochRecord[];
  timed: EpochRecord[];
  openSeconds: number[];
}

export interface NaiveRun {
  batchSize: number;
  workers: number;
  timed: EpochRecord[];
}

/** CPU the rest of the machine took during each timed segment. */
export class ForeignLoad {
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
export function codeVersion(): string {
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

export const log = (line: string): void => void process.stderr.write(line + '\n');
export const fmt = (v: number, digits = 0): string => v.toFixed(digits);
export const cpuNote = (cores: number, other: number | null): string =>
  `${cores.toFixed(2)} cores busy` + (other === null ? '' : `, other load ${other.toFixed(2)}`);
export const configKey = (mode: LoaderMode, bs: number, order: Order, cache: Cache, w: number): string =>
  `${mode}|${bs}|${order}|${cache}|${w}`;

export interface Records {
  limits: Map<LoaderMode, Array<LimitResult & { cores: number; other: number | null }>>;
  /** Limit probes (img/s per thread) between configurations, per mode. */
  probes: Map<LoaderMode, number[]>;
  /** Key `${mode}|${threads}`. */
  parallel: Map<string, Array<ParallelLimitResult & { other: number | null }>>;
  runs: Map<string, LoaderRun>;
  /** Key `${batchSize}|${workers}`. */
  naive: Map<string, NaiveRun>;
}

export type ViewName = 'all' | 'quiet';

export interface Cell {
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
export interface View {
  name: ViewName;
  limit: Map<LoaderMode, number | null>;
  parallel: Map<string, number | null>;
  naive: Map<string, number | null>;
  cells: Cell[];
}

export const isQuiet = (other: number | null): boolean => other !== null && other <= QUIET;
export const medianOrNull = (xs: number[]): number | null => (xs.length ? median(xs) : null);

import type { RunKind } from './constants.js';
import type { OrderName } from './order-names.js';
import type { ProfileAnswer } from './profile-answer.js';

// Defined with the loader config (the orders' contract); re-exported for the model's readers.
export type { OrderName };

/**
 * The profiler's data model: what a sweep measures, what the runs database stores and
 * what the app charts. Plain JSON-able data, part of the contract so that the renderer
 * (which may import only types from core/api) shares these definitions.
 */
export interface GpuInfo {
  index: number;
  name: string;
  memoryTotalMiB: number;
}

export interface MachineInfo {
  hostname: string;
  cpuModel: string;
  cores: number;
  ramBytes: number;
  os: string;
  node: string;
  gpus: GpuInfo[];
}

export interface DatasetInfo {
  path: string;
  sizeBytes: number;
  /** sha256 of the header + field table: identifies the dataset's layout, cheaply. */
  headerSha256: string;
  /**
   * sha256 of the header + field table + allocation table: identifies the dataset's content
   * (a rebuild with other settings changes the objects' sizes), still without reading the
   * data pages. Absent in runs recorded before it existed.
   */
  contentSha256?: string;
  numSamples: number;
  /** Fields as `{ name, type, typeId }`. */
  schema: Array<{ name: string; type: string; typeId: number }>;
  /**
   * Image fields' stored samples: how many raw and JPEG, and the longest side stored, so that
   * advice never suggests what the file already is. Absent in older runs and without images.
   */
  images?: { raw: number; jpg: number; maxSide: number };
}

// Defined on its own (the answer's contract shares it); re-exported for the model's readers.
import type { EngineName } from './engine-name.js';
export type { EngineName };

/** One grid cell of a sweep. */
export interface PointConfig {
  workers: number;
  batchSize: number;
  order: OrderName;
  osCache: boolean;
  /** The engine that measured it; absent (runs before engines): beton. */
  engine?: EngineName;
}

export interface ProfilePlan {
  file: string;
  workers: number[];
  batchSizes: number[];
  orders: OrderName[];
  osCache: boolean[];
  /** 'simple' | 'rrc:SIZE' | 'center:SIZE' */
  decoder: string;
  flip: boolean;
  /** LoaderOptions.fastDecode (absent: false, FFCV's pixels). */
  fastDecode?: boolean;
  /** LoaderOptions.batchesAhead for every point (absent: the loader's default, 3). */
  batchesAhead?: number;
  /** Measured seconds per point, after the warm-up. */
  secondsPerPoint: number;
  warmupBatches: number;
  /** Engines run over the grid, in this order (absent: beton alone, as before engines). */
  engines?: EngineName[];
  /** The image folder the torch engine reads (ImageFolder layout: one folder per class). */
  source?: string;
  /** Per-stage costs: timers in our workers, pipeline-prefix ablation for FFCV (absent: false). */
  stages?: boolean;
  /** Our loader's process cache (osCache off points), in bytes (absent: the loader's default, 1 GiB). */
  processCacheBytes?: number;
  /** The engine the user trains with ("I train with"): the answer is about it (absent: FFCV when measured, else torch, else ours). */
  trainWith?: EngineName;
}

/** GPU readings at one instant. */
export interface GpuReading {
  index: number;
  utilPercent: number;
  memoryUsedMiB: number;
  powerW: number | null;
}

/** One telemetry sample (about every 250 ms), for live charts and the timeline. */
export interface TelemetrySample {
  /** ms since the run started */
  t: number;
  /** Grid point being measured, or null between points / in exec mode. */
  point: number | null;
  /** Throughput over the last interval (images/s), when something is loading. */
  imagesPerSec: number | null;
  /** Busy fraction 0..1 of each logical CPU over the last interval. */
  cpuPerCore: number[];
  rssBytes: number;
  /** Bytes this process (and children) read from storage over the last interval. */
  diskReadBytes: number;
  gpus: GpuReading[];
  /**
   * CPU used by the loading process itself (with its threads, and its children in exec mode)
   * as a busy fraction 0..1 of all logical CPUs: comparable with the machine's mean of
   * cpuPerCore, the rest being other processes. null when unknown; absent in older runs.
   */
  processCpu?: number | null;
  /**
   * Mean time the consumer waited for each batch (step) it took in this interval, in ms: the
   * loader's wait per step. null when no batch was taken (between points, exec mode); absent
   * in older runs.
   */
  waitMsPerStep?: number | null;
}

export interface PointResult {
  index: number;
  config: PointConfig;
  images: number;
  seconds: number;
  imagesPerSec: number;
  batchesPerSec: number;
  /** Time the consumer waited for a batch: median and 95th percentile (ms). */
  waitP50Ms: number;
  waitP95Ms: number;
  /** Mean time to produce one batch across workers (ms of worker busy time per batch). */
  workerBusyMsPerBatch: number;
  /** Mean busy fraction per logical CPU during the point. */
  cpuPerCore: number[];
  rssPeakBytes: number;
  diskReadBytes: number;
  /** Fraction of the file resident in the OS page cache at the end of the point (null if unknown). */
  pageCacheResident: number | null;
  gpuUtilMean: number | null;
  /**
   * img/s of each equal slice of the measured time (at least two): the point's spread
   * ((max − min) / median) says how steady it was. Absent in runs before slices.
   */
  slices?: number[];
  /**
   * CPU used by the loader's process tree (our threads and any Python child) and by the
   * whole machine, as mean busy fractions 0..1 of all logical CPUs during the point: the
   * difference is what other processes took. null when unknown; absent in older runs.
   */
  loaderCpu?: number | null;
  machineCpu?: number | null;
  /** Where the time goes, per image (absent: not measured). */
  stages?: StageCosts | null;
  /** A remote file (s3://, https://): bytes and ranged GETs during the point, their mean latency (ms). Absent for local files. */
  network?: { bytes: number; requests: number; meanLatencyMs: number };
  /** Our loader with the OS cache off: bytes its process cache read from the file during the point (absent: not measured). */
  cacheReadBytes?: number;
  /** A training-command sweep's point: the command as run and what the probe measured (absent for loader sweeps). */
  exec?: ExecPointMeasures;
}

/** One grid point of a training-command sweep (`beton profile --exec "…{workers}…" --workers 1,2`). */
export interface ExecPointMeasures extends ExecMeasures {
  /** The command with its placeholders filled. */
  command: string;
  exitCode: number | null;
  signal: string | null;
  /** Stopped after the plan's secondsPerPoint (not a failure). */
  timedOut: boolean;
  /** Why the point failed (the command exited non-zero), null when it did not. */
  failure: string | null;
}

/** An engine that failed during a sweep: one line for people, the traceback for the run's log. */
export interface EngineFailure {
  engine: EngineName;
  message: string;
  /** The Python traceback / stderr tail (shown behind a disclosure, in `beton runs show --log`). */
  detail: string;
  /** Points of that engine measured before it failed. */
  measured: number;
}

/**
 * Per-image cost of each pipeline stage, in ms of worker time per image. `timers`: measured
 * in our decode workers; `ablation`: the same loader run with pipeline prefixes (decoder
 * only, + flip, …), each stage the difference in time per image × the parallel workers.
 */
export interface StageCosts {
  method: 'timers' | 'ablation';
  stages: Array<{ stage: string; msPerImage: number }>;
}

export type VerdictKind =
  'input-bound' | 'decode-bound' | 'disk-bound' | 'network-bound' | 'gpu-bound' | 'compute-bound' | 'balanced' | 'unknown';

/** A stretch of consecutive training steps (exec runs with the probe): mean wait and step time. */
export interface StepPoint {
  /** The last step of the stretch (1-based). */
  step: number;
  waitMs: number;
  stepMs: number;
}

/**
 * What an exec run's verdict was made from (docs/profiler.md, "The probe"): throughput, and
 * with the probe's per-step lines the time the step waited for data. Null measures were not
 * reported by the command (no step lines: no wait share).
 */
export interface ExecMeasures {
  /** Images/s while the command was producing images (null: it reported none). */
  imagesPerSec: number | null;
  /** Steps the probe reported (0 without the probe). */
  steps: number;
  /** Steps/s over the measured steps (the first, start-up, left out); null without step lines. */
  stepsPerSec: number | null;
  /** Σ wait ÷ Σ step time over the measured steps, 0..1; null without step lines. */
  waitShare: number | null;
  /** Mean wait and mean step (ms): waitShare is their ratio (waits are often 0 with a few long ones: the median can be 0). */
  waitMeanMs?: number | null;
  stepMeanMs?: number | null;
  waitP50Ms: number | null;
  waitP95Ms: number | null;
  stepP50Ms: number | null;
  /** Wait and step time along the run, at most a few hundred stretches of steps (for the chart). */
  series: StepPoint[];
}

export interface Verdict {
  kind: VerdictKind;
  /** One sentence for people. */
  summary: string;
  /** The measurements behind it, in words with numbers. */
  evidence: string[];
  /** Knobs to turn next, most promising first. */
  advice: string[];
  /** Exec runs: the measures behind the verdict (absent for sweeps and older runs). */
  exec?: ExecMeasures;
}

/** Why a run failed, as the app and `beton runs show` report it. */
export interface RunFailure {
  /** One line: "the command exited with code 127 (command not found)", a sweep's error. */
  message: string;
  /** A sweep's error code (BetonError's: TOO_FEW_SAMPLES, CORRUPT_SAMPLE, …), when it had one. */
  code?: string;
  /** Exec runs: the command's exit code (null when a signal ended it) and signal. */
  exitCode?: number | null;
  signal?: string | null;
  /** Exec runs: the command's last lines of stderr. */
  stderrTail?: string[];
}

export interface ProfileRun {
  id?: number;
  kind: RunKind;
  startedAt: string;
  finishedAt: string | null;
  status: 'ok' | 'cancelled' | 'failed';
  /** Set when status is 'failed' (absent in runs recorded before failures were kept). */
  failure?: RunFailure | null;
  plan: ProfilePlan | ExecPlan;
  machine: MachineInfo;
  dataset: DatasetInfo | null;
  points: PointResult[];
  samples: TelemetrySample[];
  verdict: Verdict | null;
  /** The answer (issue 27): computed once from the run (core/profile/verdict/answer.ts), shown unchanged by every surface. Absent in older runs. */
  answer?: ProfileAnswer | null;
  /** Engines that failed while the others went on (absent: none failed, or an older run). */
  engineFailures?: EngineFailure[];
}

/** A run as it starts, before it has results: what a sweep announces (onStart) and the runs database records first (startRun). */
export type RunStart = Pick<ProfileRun, 'kind' | 'startedAt' | 'plan' | 'machine' | 'dataset'>;

/** `beton profile --exec`: the user's own training command, sampled from outside. */
export interface ExecPlan {
  command: string;
  /** Throughput from JSON lines `{"step": n, "images": k}` (default) or a regex with a named group `images`. */
  throughputRegex: string | null;
  file: string | null;
  /** A training-command sweep: `{workers}` / `{batch_size}` in the command take each value (absent: one run of the command). */
  workers?: number[];
  batchSizes?: number[];
  /** Each grid point runs at most this long, then is stopped (absent/null: to its end). */
  secondsPerPoint?: number | null;
}

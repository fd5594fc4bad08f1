import type { OrderName } from './order-names.js';

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

/** One grid cell of a sweep. */
export interface PointConfig {
  workers: number;
  batchSize: number;
  order: OrderName;
  osCache: boolean;
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
}

export type VerdictKind = 'input-bound' | 'decode-bound' | 'disk-bound' | 'gpu-bound' | 'balanced' | 'unknown';

export interface Verdict {
  kind: VerdictKind;
  /** One sentence for people. */
  summary: string;
  /** The measurements behind it, in words with numbers. */
  evidence: string[];
  /** Knobs to turn next, most promising first. */
  advice: string[];
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
  kind: 'sweep' | 'exec';
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
}

/** `beton profile --exec`: the user's own training command, sampled from outside. */
export interface ExecPlan {
  command: string;
  /** Throughput from JSON lines `{"step": n, "images": k}` (default) or a regex with a named group `images`. */
  throughputRegex: string | null;
  file: string | null;
}

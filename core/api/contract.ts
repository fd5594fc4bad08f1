import { z } from 'zod';
import { BuildConfig, TABLE_FORMATS } from './build-config.js';
import { LoaderConfig } from './loader-config.js';
import { ORDER_NAMES } from './order-names.js';
import { ENGINE_NAMES, PROFILE_BOUNDS } from './profile-plan.js';
import type { DatasetSummary, FieldSummary, Region } from './dataset-summary.js';
import type { JobResults } from './job-results.js';
import type { RunComparison, RunSummary, StoredRun } from './runs-model.js';
import type { BuildAdvice } from './build-advice.js';
import type { DatasetCheck } from './dataset-check.js';
import type { PreviewValue } from './preview-value.js';
import { SampleWhere, type SampleDetail } from './sample-detail.js';
import type { JobKind } from './events.js';

/**
 * The app's service contract: every request, response and event that crosses from the
 * renderer to Electron main (IPC) or to `beton serve` (HTTP + server-sent events). Both
 * hosts validate params with these schemas (`parseRequest`); the renderer imports only
 * types from here. Long jobs return a job id at once, stream `jobs:progress` (≤ 10/s)
 * and `jobs:sample`, and always end with one `jobs:finished`.
 */

// ---------- shared shapes (types only; hosts produce them) ----------

export interface ApiError {
  code: string;
  message: string;
}
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export interface EnvInfo {
  version: string;
  node: string;
  platform: string;
  cores: number;
  ramBytes: number;
  gpus: Array<{ index: number; name: string; memoryTotalMiB: number }>;
  /** Which JPEG decode path the loader uses ('turbojpeg-npm' | 'libjpeg-system' | 'sharp'). */
  decodePath: string;
  /** The same in words for people: "libjpeg-turbo 3.1.2" or "sharp (slower fallback)" (absent from older hosts). */
  decoderName?: string;
  dbPath: string;
  /** Folders the browser may open (beton serve); empty in Electron (native dialogs). */
  roots: string[];
  host: 'electron' | 'server';
  /**
   * Whether this host runs commands the client names (profiles.start with `exec`, a build's
   * own `ffmpeg`): always in Electron, in `beton serve` only with --allow-exec. When false
   * those calls answer EXEC_DISABLED with a message that says how to turn it on.
   */
  allowExec: boolean;
}

export interface FsEntry {
  name: string;
  path: string;
  kind: 'dir' | 'file';
  size: number;
  /** What the app can do with it. */
  role: 'beton' | 'table' | 'image' | 'video' | 'other' | 'dir';
}
export interface FsListing {
  path: string;
  parent: string | null;
  entries: FsEntry[];
}

export interface DetectedSource {
  source: z.infer<typeof BuildConfig>['source'];
  fields: NonNullable<z.infer<typeof BuildConfig>['fields']>;
  length: number | null;
  /** Values detection chose for the user to review (a folder of videos' clip length, DEFAULT_CLIP_LENGTH). */
  proposed?: { clipLength: number };
  /** A page size that fits the data better than the default (small tables, core/app/page-size.ts), and why. */
  pageSize?: { bytes: number; why: string } | undefined;
}

export type { BuildAdvice };
export type { DatasetCheck, DatasetCheckResult } from './dataset-check.js';
export type { SampleDetail } from './sample-detail.js';

/** The sidecar manifest beside a .beton as the Dataset screen sees it (docs/dataset-manifest.md). */
export interface ManifestView {
  status: 'ok' | 'missing' | 'corrupt' | 'stale';
  path: string;
  /** Why a corrupt or stale manifest is ignored; null otherwise. */
  note: string | null;
  classNames: { field: string; names: string[] } | null;
  createdAt: string | null;
}

/** The samples a build skipped, from the report it wrote beside the file (core/app/build-skips.ts). */
export interface BuildSkips {
  reportPath: string;
  count: number;
  /** The first 200, in source order: source index, source file (when one), why. */
  items: Array<{ index: number; path: string | null; reason: string }>;
}

/** Samples per value of the class field (the histogram); no counts when it has more than 1000 values. */
export interface LabelSummary {
  field: string;
  distinct: number;
  truncated: boolean;
  counts: Array<{ label: number; count: number; name: string | null }>;
}

/** The app's view of a dataset summary: without record offsets and hashes, with a page map. */
export interface InspectResult extends Omit<DatasetSummary, 'allocations' | 'fields' | 'regions'> {
  fields: Array<Omit<FieldSummary, 'index' | 'metadataOffset' | 'metadataSize'>>;
  regions: Array<Omit<Region, 'sha256'>>;
  /** Which samples live on which page: [page, first sample, last sample, bytes used]. */
  pageMap: Array<[number, number, number, number]>;
  manifest?: ManifestView;
  /** The class field's histogram; null when the file has no int `label` (or manifest-named) field. */
  labels?: LabelSummary | null;
  /** What the build that wrote the file left out (its skipped-samples report); null when none is beside it. */
  skipped?: BuildSkips | null;
}

export type { PreviewValue };

export interface PreviewResult {
  path: string;
  /** With a label filter: the position among the matching samples. */
  start: number;
  numSamples: number;
  samples: Array<{
    index: number;
    fields: Record<string, PreviewValue>;
    /** Bytes each field keeps in the data pages (0: stored in the record alone). */
    storedBytes?: Record<string, number>;
    /** The class name of its label, when the manifest has one. */
    className?: string | null;
  }>;
  /** Set when filtered by label: how many samples match. */
  filter?: { field: string; label: number; matches: number };
  /** Set when filtered by a field's range or values (`where`): how many samples match (both filters, when both are given). */
  where?: { field: string; matches: number };
}

/** `runs.list` answers these; `runs.get` a StoredRun, `runs.compare` a RunComparison (core/runs makes them). */
export type { RunSummary, StoredRun, RunComparison } from './runs-model.js';
export type { ProfileOutcome, SweepOutcome, ExecOutcome, JobResults } from './job-results.js';

export type { JobKind };

// ---------- requests ----------

const path = z.string().min(1).max(4096);

const ProfilePlanInput = z
  .object({
    file: path,
    workers: z.array(z.number().int().positive()).min(1).max(16).optional(),
    /** Default: 256, capped at the dataset's size (the sweep says so); larger than the dataset fails with TOO_FEW_SAMPLES. */
    batchSizes: z.array(z.number().int().positive().max(4096)).min(1).max(8).optional(),
    orders: z.array(z.enum(ORDER_NAMES)).min(1).default(['random']),
    osCache: z.array(z.boolean()).min(1).default([true]),
    decoder: z
      .string()
      .regex(/^(simple|rrc:[1-9]\d*|center:[1-9]\d*)$/)
      .default('rrc:160'),
    flip: z.boolean().default(true),
    /** The loader's batchesAhead for every point (absent: its default, 3); the verdict may advise raising it. */
    batchesAhead: z.number().int().min(1).max(64).optional(),
    secondsPerPoint: z.number().positive().max(600).default(3),
    warmupBatches: z.number().int().min(0).default(2),
    /** Engines over the same grid (absent: beton alone); ffcv and torch run in the server's Python. */
    engines: z
      .array(z.enum(['beton', 'ffcv', 'torch']))
      .min(1)
      .max(3)
      .optional(),
    /** The torch engine's image folder (ImageFolder layout), confined like every path. */
    source: path.optional(),
    /** Per-stage costs (our workers' timers; FFCV's by pipeline-prefix ablation, which takes longer). */
    stages: z.boolean().optional(),
    /** The engine the user trains with ("I train with"): the answer is about it (absent: FFCV when measured, else torch, else ours). */
    trainWith: z.enum(ENGINE_NAMES).optional(),
    /** Our loader's process cache (points with the OS cache off), in bytes. */
    processCacheBytes: z.number().int().min(0).optional(),
    /**
     * The Python interpreter of the ffcv and torch engines (absent: the server's, `beton serve --python`, else
     * $BETON_PYTHON, else python3). Validated by running it; naming one is running a program, so the spawn gate applies.
     */
    python: z.string().min(1).max(4096).optional(),
  })
  .strict();

/** Whether an engine can run on this host, and if not, one line on how to get it (profiles.engines). */
export interface EngineStatus {
  engine: 'beton' | 'ffcv' | 'torch';
  available: boolean;
  /** The Python interpreter tried (null: none found, or beton). */
  python: string | null;
  reason: string | null;
}

const ExecPlanInput = z
  .object({
    command: z.string().min(1).max(8192),
    throughputRegex: z.string().max(1000).nullable().default(null),
    file: path.nullable().default(null),
    /** A training-command sweep: `{workers}` / `{batch_size}` in the command take each value. */
    workers: z.array(z.number().int().positive().max(1024)).min(1).max(PROFILE_BOUNDS.maxWorkerValues).optional(),
    batchSizes: z
      .array(z.number().int().positive().max(PROFILE_BOUNDS.maxBatchSize))
      .min(1)
      .max(PROFILE_BOUNDS.maxBatchSizeValues)
      .optional(),
    /** Each grid point runs at most this long (absent: to its end). */
    secondsPerPoint: z.number().positive().max(PROFILE_BOUNDS.maxSecondsPerPoint).optional(),
  })
  .strict();

export const Requests = {
  'env.info': z.object({}).strict(),
  'fs.browse': z.object({ path: path.optional() }).strict(),
  'sources.detect': z
    .object({
      path,
      imageColumn: z.string().max(256).optional(),
      /** Video folders: frames per clip (proposed: DEFAULT_CLIP_LENGTH), frames between clip starts, target fps. */
      clipLength: z.number().int().positive().max(65535).optional(),
      stride: z.number().int().positive().optional(),
      fps: z.number().positive().nullable().optional(),
    })
    .strict(),
  /** A string column's distinct values, sorted: the categories of a category → int label field. */
  'sources.categories': z.object({ path, column: z.string().min(1).max(256), format: z.enum(TABLE_FORMATS).optional() }).strict(),
  'datasets.inspect': z.object({ path }).strict(),
  'datasets.preview': z
    .object({
      path,
      start: z.number().int().min(0).default(0),
      count: z.number().int().min(1).max(64).default(24),
      thumb: z.number().int().min(16).max(512).default(96),
      /** Only samples whose class field (labelField, default the dataset's) has this value; start counts among them. */
      label: z.number().int().optional(),
      labelField: z.string().min(1).max(256).optional(),
      /** Only samples whose int/float/string field is in a range or among values; start counts among them. */
      where: SampleWhere.optional(),
    })
    .strict(),
  /** One sample in full: the image at full resolution, every field's value, stored size, page and offset, its duplicate groups (from a kept check). */
  'datasets.sample': z.object({ path, index: z.number().int().min(0) }).strict(),
  /**
   * The kept `beton check` result of a file (null when none is kept or the file changed); run: true checks it now,
   * in this one request (no progress, no cancel: the app runs a check as a job, checks.start).
   */
  'datasets.check': z.object({ path, run: z.boolean().default(false) }).strict(),
  /** Runs `beton check` on a file as a job: jobs:progress (samples decoded of the total), jobs:finished with the DatasetCheck. */
  'checks.start': z.object({ path }).strict(),
  /** Stops a running check: it ends as cancelled and keeps no result beside the file. */
  'checks.cancel': z.object({ jobId: z.string().min(1).max(64) }).strict(),
  /** overwrite: replace an existing output (default false: OUTPUT_EXISTS); an output that is an input is refused either way (OUTPUT_IS_INPUT). */
  'builds.start': z.object({ config: BuildConfig, overwrite: z.boolean().optional() }).strict(),
  'builds.cancel': z.object({ jobId: z.string().min(1).max(64) }).strict(),
  /** The builds this host ran since it started (newest first): a reloaded page shows them again. */
  'builds.list': z.object({}).strict(),
  /** Advice before building: estimates from encoding `sample` seeded source items (nothing is written). loaderSize: the loader's crop, for the upscaling warning. */
  'builds.advise': z
    .object({
      config: BuildConfig,
      sample: z.number().int().min(1).max(256).default(24),
      seed: z.number().int().min(0).default(0),
      loaderSize: z.number().int().min(8).max(8192).nullable().default(null),
      previewItems: z.number().int().min(0).max(8).default(4),
    })
    .strict(),
  'profiles.start': z.union([z.object({ plan: ProfilePlanInput }).strict(), z.object({ exec: ExecPlanInput }).strict()]),
  'profiles.cancel': z.object({ jobId: z.string().min(1).max(64) }).strict(),
  'profiles.engines': z.object({}).strict(),
  'runs.list': z.object({ limit: z.number().int().positive().max(1000).default(200) }).strict(),
  'runs.get': z.object({ id: z.number().int().positive() }).strict(),
  'runs.compare': z.object({ a: z.number().int().positive(), b: z.number().int().positive() }).strict(),
  'runs.delete': z.object({ id: z.number().int().positive() }).strict(),
  'export.generate': z
    .object({
      build: BuildConfig.optional(),
      loader: LoaderConfig.optional(),
      format: z.enum(['python', 'json']).default('python'),
      /**
       * The stored profile run (and 1-based point; absent: its fastest) the loader's settings
       * came from: the code names them in a comment (issue 30). Leave it out once the settings
       * were edited.
       */
      from: z.object({ run: z.number().int().positive(), point: z.number().int().positive().optional() }).strict().optional(),
    })
    .strict()
    .refine((v) => v.build || v.loader, 'give a build or a loader config'),
} as const;

export type Method = keyof typeof Requests;
export type Params<M extends Method> = z.input<(typeof Requests)[M]>;
export type ParsedParams<M extends Method> = z.output<(typeof Requests)[M]>;

/** A build this host ran (builds.list): what it was asked, and how it ended. */
export interface BuildHistoryEntry {
  jobId: string;
  config: z.input<typeof BuildConfig>;
  /** ms since the epoch, on the host's clock. */
  startedAt: number;
  finishedAt: number | null;
  status: 'running' | 'ok' | 'cancelled' | 'failed';
  report: JobResults['build'] | null;
  message: string | null;
}

/** What each method returns (the hosts implement these). */
export interface Results {
  'env.info': EnvInfo;
  'fs.browse': FsListing;
  'sources.detect': DetectedSource;
  'sources.categories': { column: string; categories: string[]; rows: number };
  'datasets.inspect': InspectResult;
  'datasets.preview': PreviewResult;
  'datasets.sample': SampleDetail;
  'datasets.check': DatasetCheck | null;
  'checks.start': { jobId: string };
  'checks.cancel': { cancelled: boolean };
  'builds.start': { jobId: string };
  'builds.cancel': { cancelled: boolean };
  'builds.list': BuildHistoryEntry[];
  'builds.advise': BuildAdvice;
  'profiles.start': { jobId: string };
  'profiles.cancel': { cancelled: boolean };
  'profiles.engines': EngineStatus[];
  'runs.list': RunSummary[];
  'runs.get': StoredRun;
  'runs.compare': RunComparison;
  'runs.delete': { deleted: boolean };
  'export.generate': { text: string; language: 'python' | 'json' };
}

export type { ApiEvent, EventName, Events, FinishedEvent, FinishedEventOf, ProgressEvent, SampleEvent } from './events.js';
export { EVENT_NAMES } from './events.js';

export const METHODS = Object.keys(Requests) as Method[];

export function isMethod(m: unknown): m is Method {
  return typeof m === 'string' && Object.prototype.hasOwnProperty.call(Requests, m);
}

/** Validates an untrusted request; errors name the bad key. */
export function parseRequest(
  method: unknown,
  params: unknown,
): { ok: true; method: Method; params: ParsedParams<Method> } | { ok: false; error: ApiError } {
  if (!isMethod(method)) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `unknown method ${String(method).slice(0, 80)}` } };
  const r = Requests[method].safeParse(params ?? {});
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.map(String).join('.') || '(params)'}: ${i.message}`).join('; ');
    return { ok: false, error: { code: 'BAD_REQUEST', message: `${method}: ${msg}` } };
  }
  return { ok: true, method, params: r.data as ParsedParams<Method> };
}

/** The only IPC channels (preload exposes exactly these). */
export const IPC = { invoke: 'beton:api', event: 'beton:event' } as const;

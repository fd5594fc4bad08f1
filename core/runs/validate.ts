import { z } from 'zod';
import { ORDER_NAMES } from '../api/order-names.js';
import { RUN_KIND_NAMES, type RunKind } from '../api/constants.js';
import { ownRecord } from '../api/own-record.js';
import { ACTION_IDS, BOTTLENECKS } from '../api/profile-answer.js';
import type {
  DatasetInfo,
  ExecPlan,
  GpuInfo,
  GpuReading,
  MachineInfo,
  PointConfig,
  PointResult,
  ProfilePlan,
  ProfileRun,
  RunFailure,
  TelemetrySample,
  Verdict,
  VerdictKind,
} from '../api/profile-model.js';
import { RunsDbError } from './errors.js';

/**
 * Boundary checks for everything the runs database stores: the profiler's data model
 * (core/api/profile-model.ts) as zod schemas. Numbers must be finite (zod 4 rejects NaN and
 * ±Infinity, which JSON cannot carry); counts are non-negative integers. Objects stored
 * whole as JSON (plan, point, verdict, GPU entries) are "loose": a field added to the data
 * model later is kept. Machine, dataset and sample are stored as columns: extra keys are dropped.
 */
const nonneg = z.number().nonnegative();
const count = z.number().int().nonnegative();
const posInt = z.number().int().positive();
const isoTime = z.iso.datetime({ offset: true });

const VERDICTS = [
  'input-bound',
  'decode-bound',
  'disk-bound',
  'network-bound',
  'gpu-bound',
  'compute-bound',
  'balanced',
  'unknown',
] as const satisfies readonly VerdictKind[];
export const FINAL_STATUSES = ['ok', 'cancelled', 'failed'] as const;

const GpuInfoSchema = z.looseObject({ index: count, name: z.string(), memoryTotalMiB: nonneg }) satisfies z.ZodType<GpuInfo>;

export const MachineSchema = z.object({
  hostname: z.string(),
  cpuModel: z.string(),
  cores: count,
  ramBytes: nonneg,
  os: z.string(),
  node: z.string(),
  gpus: z.array(GpuInfoSchema),
}) satisfies z.ZodType<MachineInfo>;

export const DatasetSchema = z.object({
  path: z.string().min(1),
  sizeBytes: nonneg,
  headerSha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits (sha256)'),
  contentSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits (sha256)')
    .optional(),
  numSamples: count,
  schema: z.array(z.looseObject({ name: z.string(), type: z.string(), typeId: count })),
}) satisfies z.ZodType<DatasetInfo>;

export const PointConfigSchema = z.looseObject({
  workers: posInt,
  batchSize: posInt,
  order: z.enum(ORDER_NAMES),
  osCache: z.boolean(),
  engine: z.enum(['beton', 'ffcv', 'torch']).optional(),
}) satisfies z.ZodType<PointConfig>;

const StageCostsSchema = z.looseObject({
  method: z.enum(['timers', 'ablation']),
  stages: z.array(z.looseObject({ stage: z.string().min(1).max(100), msPerImage: nonneg })).max(64),
});

export const PointSchema = z.looseObject({
  index: count,
  config: PointConfigSchema,
  images: nonneg,
  seconds: nonneg,
  imagesPerSec: nonneg,
  batchesPerSec: nonneg,
  waitP50Ms: nonneg,
  waitP95Ms: nonneg,
  workerBusyMsPerBatch: nonneg,
  cpuPerCore: z.array(nonneg),
  rssPeakBytes: nonneg,
  diskReadBytes: nonneg,
  pageCacheResident: nonneg.nullable(),
  gpuUtilMean: nonneg.nullable(),
  slices: z.array(nonneg).max(1000).optional(),
  loaderCpu: nonneg.nullable().optional(),
  machineCpu: nonneg.nullable().optional(),
  stages: StageCostsSchema.nullable().optional(),
  network: z.looseObject({ bytes: nonneg, requests: nonneg, meanLatencyMs: nonneg }).optional(),
  cacheReadBytes: nonneg.optional(),
}) satisfies z.ZodType<PointResult>;

const GpuReadingSchema = z.looseObject({
  index: count,
  utilPercent: nonneg,
  memoryUsedMiB: nonneg,
  powerW: nonneg.nullable(),
}) satisfies z.ZodType<GpuReading>;

export const SampleSchema = z.object({
  t: nonneg,
  point: count.nullable(),
  imagesPerSec: nonneg.nullable(),
  cpuPerCore: z.array(nonneg),
  rssBytes: nonneg,
  diskReadBytes: nonneg,
  gpus: z.array(GpuReadingSchema),
  processCpu: nonneg.nullable().optional(),
  waitMsPerStep: nonneg.nullable().optional(),
}) satisfies z.ZodType<TelemetrySample>;

export const VerdictSchema = z.looseObject({
  kind: z.enum(VERDICTS),
  summary: z.string(),
  evidence: z.array(z.string()),
  advice: z.array(z.string()),
}) satisfies z.ZodType<Verdict>;

export const SweepPlanSchema = z.looseObject({
  file: z.string(),
  workers: z.array(posInt),
  batchSizes: z.array(posInt),
  orders: z.array(z.enum(ORDER_NAMES)),
  osCache: z.array(z.boolean()),
  decoder: z.string(),
  flip: z.boolean(),
  fastDecode: z.boolean().optional(),
  batchesAhead: posInt.optional(),
  secondsPerPoint: nonneg,
  warmupBatches: count,
}) satisfies z.ZodType<ProfilePlan>;

export const ExecPlanSchema = z.looseObject({
  command: z.string(),
  throughputRegex: z.string().nullable(),
  file: z.string().nullable(),
}) satisfies z.ZodType<ExecPlan>;

export const FailureSchema = z.looseObject({
  message: z.string(),
  code: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  stderrTail: z.array(z.string()).optional(),
}) satisfies z.ZodType<RunFailure>;

/** The answer, loosely: its keys are the contract's (core/api/profile-answer.ts), what it holds is the answer's own. */
export const AnswerSchema = z.looseObject({
  engine: z.string(),
  best: z.looseObject({ point: z.number().int().nullable(), images_per_sec: z.number().nullable() }),
  bottleneck: z.enum(BOTTLENECKS),
  contended: z.boolean(),
  noise: z.number().nullable(),
  summary: z.string(),
  evidence: z.array(z.string()),
  actions: z.array(z.looseObject({ id: z.enum(ACTION_IDS), label: z.string(), params: z.record(z.string(), z.unknown()) })),
  engines: z.record(z.string(), z.unknown()),
});

export const EngineFailureSchema = z.looseObject({
  engine: z.enum(['beton', 'ffcv', 'torch']),
  message: z.string(),
  detail: z.string(),
  measured: count,
});

/** Each run kind's plan: the compiler holds this to RUN_KINDS (core/api/constants.ts). */
export const PLAN_SCHEMAS = { sweep: SweepPlanSchema, exec: ExecPlanSchema } as const satisfies Record<RunKind, z.ZodType>;

/** What startRun() needs: a run without its results (the plan is checked against its kind's schema). */
export const RunStartSchema = z.object({
  kind: z.enum(RUN_KIND_NAMES),
  startedAt: isoTime,
  // An object here; checked against its kind's schema (PLAN_SCHEMAS) where it is stored.
  plan: z.custom<ProfileRun['plan']>((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'expected an object'),
  machine: MachineSchema,
  dataset: DatasetSchema.nullable(),
});

export const RunSchema = RunStartSchema.extend({
  finishedAt: isoTime.nullable(),
  status: z.enum(FINAL_STATUSES),
  failure: FailureSchema.nullable().optional(),
  points: z.array(PointSchema),
  samples: z.array(SampleSchema),
  verdict: VerdictSchema.nullable(),
  answer: AnswerSchema.nullable().optional(),
  engineFailures: z.array(EngineFailureSchema).optional(),
});

export const FinishSchema = z.object({
  status: z.enum(FINAL_STATUSES),
  verdict: VerdictSchema.nullable(),
  finishedAt: isoTime,
  failure: FailureSchema.nullable(),
  answer: AnswerSchema.nullable().optional(),
  engineFailures: z.array(EngineFailureSchema).optional(),
});

export const ListOptionsSchema = z.strictObject({ limit: z.number().int().min(1).max(1_000_000).optional() });

export const BuildSchema = z.object({
  datasetId: posInt.nullable(),
  // A build config holds names users choose (fields, columns): ownRecord keeps a `__proto__`
  // key as an own entry, where z.record drops it.
  config: ownRecord(z.unknown()),
  report: z.looseObject({ path: z.string(), numSamples: count }),
});

/** Parses `value` with `schema`, or throws RunsDbError('INVALID_INPUT') naming what and where. */
export function check<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(value)'}: ${i.message}`);
  const more = r.error.issues.length > 5 ? ` (and ${r.error.issues.length - 5} more)` : '';
  throw new RunsDbError('INVALID_INPUT', `invalid ${what}: ${issues.join('; ')}${more}`);
}

/** A database id: a positive safe integer. */
export function checkId(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RunsDbError(
      'INVALID_INPUT',
      `${what} must be a positive integer, got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}

/** JSON text of a value the database stores; throws INVALID_INPUT for what JSON cannot hold (bigint, cycles). */
export function toJson(value: unknown, what: string): string {
  try {
    const s = JSON.stringify(value);
    if (typeof s !== 'string') throw new Error('not representable');
    return s;
  } catch (e) {
    throw new RunsDbError('INVALID_INPUT', `${what} cannot be stored as JSON: ${(e as Error).message}`);
  }
}

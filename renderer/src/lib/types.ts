/**
 * View types for results the contract types as `unknown` (build reports, telemetry samples,
 * profile runs, comparisons). The profiler's data model comes from the contract
 * (core/api/profile-model.ts, build-report.ts; types only); the views keep the fields the screens use. Every
 * value is narrowed at runtime before use, so a host that sends something else shows as an
 * error instead of a crash.
 */
import type { BuildReport as ModelBuildReport } from '../../../core/api/build-report.js';
import type { RunSummary } from '../../../core/api/contract.js';
import type {
  GpuReading,
  OrderName,
  PointConfig,
  PointResult as ModelPointResult,
  TelemetrySample,
  Verdict as ModelVerdict,
} from '../../../core/api/profile-model.js';

export type { GpuReading, OrderName, PointConfig, TelemetrySample };

/** A grid point's result, as the Profile and Runs screens show it. */
export type PointResult = Pick<
  ModelPointResult,
  'index' | 'config' | 'images' | 'seconds' | 'imagesPerSec' | 'batchesPerSec' | 'waitP50Ms' | 'waitP95Ms' | 'cpuPerCore' | 'gpuUtilMean'
>;

/** A verdict; its kind is shown as text, so a kind this renderer does not know still displays. */
export type Verdict = Omit<ModelVerdict, 'kind'> & { kind: string };

export interface ProfileRunView {
  id: number;
  kind: 'sweep' | 'exec';
  startedAt: string;
  finishedAt: string | null;
  status: RunSummary['status'];
  /** The plan as stored (sweep or command): every setting, shown as given. */
  plan: Record<string, unknown>;
  machine: { hostname: string; cpuModel: string; cores: number; ramBytes: number; os: string; node: string; gpus: string[] } | null;
  dataset: { path: string; numSamples: number; sizeBytes: number; contentSha256: string | null } | null;
  /** A failed run's reason. */
  failure: string | null;
  points: PointResult[];
  samples: TelemetrySample[];
  verdict: Verdict | null;
}

/** A build report; `source` is null when the host did not say (older hosts). */
export type BuildReport = Omit<ModelBuildReport, 'source'> & { source: ModelBuildReport['source'] | null };

export type ProfileOutcome =
  | { kind: 'sweep'; runId: number; verdict: Verdict | null; points: PointResult[] }
  | {
      kind: 'exec';
      runId: number;
      exitCode: number | null;
      signal: string | null;
      imagesTotal: number | null;
      seconds: number | null;
      /** The command's last lines of stderr (shown when it failed). */
      stderrTail: string[];
      /** Why the run failed ("the command exited with code 127 (command not found)"), null when it did not. */
      failure: string | null;
    };

/** B against A, with its direction (the host words it: "B is 3.26× slower than A"). */
export interface Change {
  direction: 'faster' | 'slower' | 'same' | null;
  factor: number | null;
  text: string;
}

export interface CompareRow extends Change {
  config: PointConfig;
  a: { imagesPerSec: number };
  b: { imagesPerSec: number };
  ratio: number | null;
}

export interface RunComparison {
  rows: CompareRow[];
  best: Change | null;
  sameMachine: boolean;
  /** null: unknown (a run recorded no dataset content). */
  sameDataset: boolean | null;
  datasetNote: string;
}

// ---------- narrowing ----------

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown, d = 0): number => (typeof x === 'number' && Number.isFinite(x) ? x : d);
const numOrNull = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const str = (x: unknown, d = ''): string => (typeof x === 'string' ? x : d);
const strs = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
const nums = (x: unknown): number[] => (Array.isArray(x) ? x.map((v) => num(v)) : []);
// The contract's ORDER_NAMES, repeated: the renderer may import only types from core/api.
const ORDERS = ['sequential', 'random', 'quasi_random'] as const satisfies readonly OrderName[];

export function asTelemetrySample(x: unknown): TelemetrySample | null {
  if (!isObj(x) || typeof x.t !== 'number') return null;
  return {
    t: x.t,
    point: numOrNull(x.point),
    imagesPerSec: numOrNull(x.imagesPerSec),
    cpuPerCore: nums(x.cpuPerCore),
    rssBytes: num(x.rssBytes),
    diskReadBytes: num(x.diskReadBytes),
    gpus: Array.isArray(x.gpus)
      ? x.gpus.filter(isObj).map((g) => ({ index: num(g.index), utilPercent: num(g.utilPercent), memoryUsedMiB: num(g.memoryUsedMiB), powerW: numOrNull(g.powerW) }))
      : [],
    processCpu: numOrNull(x.processCpu),
    waitMsPerStep: numOrNull(x.waitMsPerStep),
  };
}

export function asPointConfig(x: unknown): PointConfig | null {
  if (!isObj(x)) return null;
  const order = ORDERS.includes(x.order as OrderName) ? (x.order as OrderName) : 'random';
  return { workers: num(x.workers), batchSize: num(x.batchSize), order, osCache: x.osCache !== false };
}

export function asPointResult(x: unknown): PointResult | null {
  if (!isObj(x)) return null;
  const config = asPointConfig(x.config);
  if (!config || typeof x.imagesPerSec !== 'number') return null;
  return {
    index: num(x.index),
    config,
    images: num(x.images),
    seconds: num(x.seconds),
    imagesPerSec: x.imagesPerSec,
    batchesPerSec: num(x.batchesPerSec),
    waitP50Ms: num(x.waitP50Ms),
    waitP95Ms: num(x.waitP95Ms),
    cpuPerCore: nums(x.cpuPerCore),
    gpuUtilMean: numOrNull(x.gpuUtilMean),
  };
}

const points = (x: unknown): PointResult[] => (Array.isArray(x) ? x.map(asPointResult).filter((p): p is PointResult => p !== null) : []);

export function asVerdict(x: unknown): Verdict | null {
  if (!isObj(x) || typeof x.kind !== 'string') return null;
  return { kind: x.kind, summary: str(x.summary), evidence: strs(x.evidence), advice: strs(x.advice) };
}

export function asBuildReport(x: unknown): BuildReport | null {
  if (!isObj(x) || typeof x.numSamples !== 'number' || typeof x.path !== 'string') return null;
  const rec = (v: unknown): Record<string, number> => (isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, n]) => [k, num(n)])) : {});
  const modes: BuildReport['imageModes'] = {};
  if (isObj(x.imageModes)) for (const [k, m] of Object.entries(x.imageModes)) if (isObj(m)) modes[k] = { raw: num(m.raw), jpg: num(m.jpg), passThrough: num(m.passThrough) };
  const src = isObj(x.source) ? { kind: str(x.source.kind), path: str(x.source.path), items: num(x.source.items) } : null;
  return {
    path: x.path,
    numSamples: x.numSamples,
    skipped: Array.isArray(x.skipped)
      ? x.skipped.filter(isObj).map((s) => ({ index: num(s.index), reason: str(s.reason), ...(typeof s.source === 'string' ? { source: s.source } : {}), ...(typeof s.field === 'string' ? { field: s.field } : {}) }))
      : [],
    pages: num(x.pages),
    pageSize: num(x.pageSize),
    fileSize: num(x.fileSize),
    elapsedMs: num(x.elapsedMs),
    samplesPerSec: num(x.samplesPerSec),
    heapBytes: rec(x.heapBytes),
    imageModes: modes,
    sourceBytes: num(x.sourceBytes),
    source: src,
    compressionRatio: numOrNull(x.compressionRatio),
    passThrough: num(x.passThrough),
    reportPath: typeof x.reportPath === 'string' ? x.reportPath : null,
  };
}

export function asProfileOutcome(x: unknown): ProfileOutcome | null {
  if (!isObj(x) || typeof x.runId !== 'number') return null;
  if ('exitCode' in x || 'imagesTotal' in x) {
    return {
      kind: 'exec',
      runId: x.runId,
      exitCode: numOrNull(x.exitCode),
      signal: typeof x.signal === 'string' ? x.signal : null,
      imagesTotal: numOrNull(x.imagesTotal),
      seconds: numOrNull(x.seconds),
      stderrTail: strs(x.stderrTail),
      failure: typeof x.failure === 'string' ? x.failure : null,
    };
  }
  return { kind: 'sweep', runId: x.runId, verdict: asVerdict(x.verdict), points: points(x.points) };
}

export function asProfileRun(x: unknown): ProfileRunView | null {
  if (!isObj(x) || typeof x.id !== 'number') return null;
  const status = (['running', 'ok', 'cancelled', 'failed'] as const).find((s) => s === x.status) ?? 'failed';
  const m = isObj(x.machine)
    ? {
        hostname: str(x.machine.hostname),
        cpuModel: str(x.machine.cpuModel),
        cores: num(x.machine.cores),
        ramBytes: num(x.machine.ramBytes),
        os: str(x.machine.os),
        node: str(x.machine.node),
        gpus: Array.isArray(x.machine.gpus) ? x.machine.gpus.filter(isObj).map((g) => str(g.name, `GPU ${num(g.index)}`)) : [],
      }
    : null;
  const d = isObj(x.dataset)
    ? { path: str(x.dataset.path), numSamples: num(x.dataset.numSamples), sizeBytes: num(x.dataset.sizeBytes), contentSha256: typeof x.dataset.contentSha256 === 'string' ? x.dataset.contentSha256 : null }
    : null;
  return {
    id: x.id,
    kind: x.kind === 'exec' ? 'exec' : 'sweep',
    startedAt: str(x.startedAt),
    finishedAt: typeof x.finishedAt === 'string' ? x.finishedAt : null,
    status,
    plan: isObj(x.plan) ? x.plan : {},
    machine: m,
    dataset: d,
    failure: isObj(x.failure) && typeof x.failure.message === 'string' ? x.failure.message : null,
    points: points(x.points),
    samples: Array.isArray(x.samples) ? x.samples.map(asTelemetrySample).filter((s): s is TelemetrySample => s !== null) : [],
    verdict: asVerdict(x.verdict),
  };
}

const DIRECTIONS = ['faster', 'slower', 'same'] as const;

/** A change as the host words it (core/runs' changeOf: the one place that decides direction and words). */
export function asChange(x: unknown): Change | null {
  if (!isObj(x) || typeof x.text !== 'string') return null;
  return { direction: DIRECTIONS.find((d) => d === x.direction) ?? null, factor: numOrNull(x.factor), text: x.text };
}

export function asComparison(x: unknown): RunComparison | null {
  if (!isObj(x) || !Array.isArray(x.rows)) return null;
  const rows: CompareRow[] = [];
  for (const r of x.rows) {
    if (!isObj(r)) continue;
    const config = asPointConfig(r.config);
    if (!config || !isObj(r.a) || !isObj(r.b)) continue;
    const change = asChange(r) ?? { direction: null, factor: null, text: '—' };
    rows.push({ config, a: { imagesPerSec: num(r.a.imagesPerSec) }, b: { imagesPerSec: num(r.b.imagesPerSec) }, ratio: numOrNull(r.ratio), ...change });
  }
  const sameDataset = typeof x.sameDataset === 'boolean' ? x.sameDataset : null;
  const datasetNote = typeof x.datasetNote === 'string' ? x.datasetNote : sameDataset === null ? 'dataset unknown' : sameDataset ? 'same dataset' : 'different datasets';
  return { rows, best: asChange(x.best), sameMachine: x.sameMachine === true, sameDataset, datasetNote };
}

/**
 * The renderer's names for the results the host sends: all of them are the contract's own
 * types (core/api; types only), made by the core code that answers — a change there breaks
 * this type-check rather than a screen at run time. The one addition is the `kind` tag on a
 * profile job's outcome, which the wire tells apart by its keys.
 */
import type { ExecOutcome, ProfileOutcome as WireProfileOutcome, SweepOutcome } from '../../../core/api/contract.js';

export type { BuildReport } from '../../../core/api/build-report.js';
import type { PointResult as ModelPointResult } from '../../../core/api/profile-model.js';
import type { ProfileAnswer } from '../../../core/api/profile-answer.js';
export type {
  EngineName,
  GpuReading,
  OrderName,
  PointConfig,
  StageCosts,
  TelemetrySample,
  Verdict,
} from '../../../core/api/profile-model.js';
export type { EngineStatus } from '../../../core/api/contract.js';
export type { Change, CompareRow, RunComparison, StoredRun as ProfileRunView } from '../../../core/api/runs-model.js';

/** The fields of a grid point the Profile and Runs screens show (fixtures need no more). */
export type PointResult = Pick<
  ModelPointResult,
  'index' | 'config' | 'images' | 'seconds' | 'imagesPerSec' | 'batchesPerSec' | 'waitP50Ms' | 'waitP95Ms' | 'cpuPerCore' | 'gpuUtilMean'
> &
  Partial<Pick<ModelPointResult, 'slices' | 'stages' | 'loaderCpu' | 'machineCpu'>>;

export type ProfileOutcome = (SweepOutcome & { kind: 'sweep' }) | (ExecOutcome & { kind: 'exec' });

/** A profile job's outcome with its kind: an exec outcome is the one with an exit code. */
export function outcomeWithKind(o: WireProfileOutcome): ProfileOutcome {
  return 'exitCode' in o ? { kind: 'exec', ...o } : { kind: 'sweep', ...o };
}

export type { ActionId, AnswerAction, Bottleneck, EngineBest, ProfileAnswer } from '../../../core/api/profile-answer.js';

/**
 * A run's or a job outcome's answer (core's one verdict, computed once and stored with the
 * run), or null where the host recorded none (runs from before answers). Read by key: the
 * same function serves stored runs and job outcomes.
 */
export function answerOf(x: object | null | undefined): ProfileAnswer | null {
  if (!x || !('answer' in x)) return null;
  const a = (x as { answer?: unknown }).answer;
  return a && typeof a === 'object' && 'best' in a && 'actions' in a ? (a as ProfileAnswer) : null;
}

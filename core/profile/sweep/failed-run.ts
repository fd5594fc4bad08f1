import { completePlan, tryDatasetInfo } from './sweep.js';
import { machineInfo } from '../sampling/machine.js';
import { answerOf } from '../verdict/answer.js';
import type { PointResult, ProfilePlan, ProfileRun, RunFailure, TelemetrySample } from '../../api/profile-model.js';

/** A failure as a run keeps it: the error's message and, when it has one, its code. */
export function failureOf(e: unknown): RunFailure {
  const message = e instanceof Error ? e.message : String(e);
  const code = typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  return { message, ...(code ? { code } : {}) };
}

/**
 * The record of a sweep that failed: its plan, machine and dataset (as far as they can be
 * known), the points and samples it had measured, and why it failed — so a failed sweep
 * shows in the runs as failed instead of not at all.
 */
export async function failedSweepRun(
  planInput: Partial<ProfilePlan> & { file: string },
  startedAt: string,
  e: unknown,
  points: readonly PointResult[],
  samples: readonly TelemetrySample[],
): Promise<ProfileRun> {
  const run: ProfileRun = {
    kind: 'sweep',
    startedAt,
    finishedAt: new Date().toISOString(),
    status: 'failed',
    failure: failureOf(e),
    plan: completePlan(planInput),
    machine: await machineInfo(),
    dataset: tryDatasetInfo(planInput.file),
    points: [...points],
    samples: [...samples],
    verdict: null,
  };
  // What was measured still has an answer (issue 27: a failure does not lose the points).
  return { ...run, answer: points.length ? answerOf(run) : null };
}

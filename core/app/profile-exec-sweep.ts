/**
 * A sweep of the user's own training command (issue 27, item 2): `beton profile --exec "python
 * train.py --workers {workers} --batch-size {batch_size}" --workers 2,4,8 --batch-sizes 256`
 * runs the command once per grid point with its placeholders filled, each sampled from
 * outside with the probe's wait share, images/s and GPU utilisation, and records them as one
 * exec run whose points carry their measures. The answer names the fewest workers that keep
 * the step's wait under 5%, or says none did. The CLI and the service both call it.
 */
import type { ExecOutcome } from '../api/job-results.js';
import type { ExecPlan, PointResult, ProfileRun, TelemetrySample } from '../api/profile-model.js';
import { execPointsOf, fillCommand } from '../api/profile-plan.js';
import { answerOf } from '../profile/verdict/answer.js';
import { pointResultOf } from '../profile/engines/engine-points.js';
import { execOutcome, runExec, type ExecResult } from '../profile/exec/exec-mode.js';
import { diagnoseExec } from '../profile/verdict/exec-verdict.js';
import { machineInfo } from '../profile/sampling/machine.js';
import { tryDatasetInfo } from '../profile/sweep/sweep.js';
import { RunWriter, type RunRecorder } from './run-writer.js';

export interface ExecSweepHooks {
  signal?: AbortSignal;
  gpu?: boolean;
  onSample?: (s: TelemetrySample) => void;
  onPoint?: (p: PointResult, done: number, total: number) => void;
  /** What runs now, in words ("running point 2 of 4: 2 workers — python train.py …"). */
  onWait?: (message: string, done: number, total: number) => void;
  onGpuUnavailable?: (reason: string) => void;
  /** Where each command's output goes (default: ours; null swallows it). */
  stdout?: NodeJS.WritableStream | null;
  stderr?: NodeJS.WritableStream | null;
}

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** img/s in `k` equal stretches of the samples that produced images: the point's spread. */
function sampleSlices(samples: readonly TelemetrySample[], k = 3): number[] | undefined {
  const rates = samples.flatMap((s) => (s.imagesPerSec != null && s.imagesPerSec > 0 ? [s.imagesPerSec] : []));
  if (rates.length < k) return undefined;
  const out: number[] = [];
  for (let i = 0; i < k; i++) out.push(mean(rates.slice(Math.floor((i * rates.length) / k), Math.floor(((i + 1) * rates.length) / k)))!);
  return out;
}

/** One grid point of the command: its run's measures as a PointResult with `exec`. */
export function execPointOf(
  index: number,
  grid: { workers: number | null; batchSize: number | null },
  command: string,
  res: ExecResult,
  samples: readonly TelemetrySample[],
): PointResult {
  const m = res.measures;
  const perStep = m.steps > 0 && res.imagesTotal > 0 ? Math.round(res.imagesTotal / m.steps) : null;
  const base = pointResultOf({
    index,
    config: { workers: grid.workers ?? 1, batchSize: grid.batchSize ?? perStep ?? 1, order: 'random', osCache: true },
    images: res.imagesTotal,
    seconds: res.seconds,
    batches: m.steps,
    waits: [],
    slices: sampleSlices(samples) ?? [],
    samples,
    workerBusyMsPerBatch: null,
    pageCacheResident: null,
  });
  const { failure } = execOutcome(res);
  return {
    ...base,
    imagesPerSec: m.imagesPerSec ?? base.imagesPerSec,
    batchesPerSec: m.stepsPerSec ?? base.batchesPerSec,
    waitP50Ms: m.waitP50Ms ?? 0,
    waitP95Ms: m.waitP95Ms ?? 0,
    ...(base.slices?.length ? {} : { slices: undefined }),
    exec: {
      ...m,
      command,
      exitCode: res.exitCode,
      signal: res.signal,
      timedOut: res.timedOut === true,
      failure: failure?.message ?? null,
    },
  };
}

/** Runs the command over the plan's grid and records one exec run with a point per grid cell. */
export async function profileExecSweep(
  plan: ExecPlan,
  runs: RunRecorder,
  hooks: ExecSweepHooks = {},
): Promise<{ run: ProfileRun; runId: number; outcome: ExecOutcome }> {
  const machine = await machineInfo();
  const startedAt = new Date().toISOString();
  const writer = new RunWriter(runs);
  const execPlan: ExecPlan = {
    command: plan.command,
    throughputRegex: plan.throughputRegex,
    file: plan.file,
    ...(plan.workers?.length ? { workers: plan.workers } : {}),
    ...(plan.batchSizes?.length ? { batchSizes: plan.batchSizes } : {}),
    ...(plan.secondsPerPoint ? { secondsPerPoint: plan.secondsPerPoint } : {}),
  };
  const dataset = plan.file ? tryDatasetInfo(plan.file) : null;
  writer.start({ kind: 'exec', startedAt, plan: execPlan, machine, dataset });
  const grid = execPointsOf(execPlan);
  const points: PointResult[] = [];
  const samples: TelemetrySample[] = [];
  let offset = 0;
  let last: ExecResult | null = null;
  let imagesTotal = 0;
  let cancelled = false;
  for (const [index, cell] of grid.entries()) {
    if (hooks.signal?.aborted) {
      cancelled = true;
      break;
    }
    const command = fillCommand(plan.command, cell);
    hooks.onWait?.(
      `running point ${index + 1} of ${grid.length}: ${cell.workers !== null ? `${cell.workers} worker${cell.workers === 1 ? '' : 's'}` : ''}${cell.batchSize !== null ? `, batch ${cell.batchSize}` : ''} — ${command}`,
      index,
      grid.length,
    );
    const mine: TelemetrySample[] = [];
    const t0 = offset;
    const res = await runExec({
      command,
      throughputRegex: plan.throughputRegex,
      signal: hooks.signal,
      gpu: hooks.gpu,
      maxSeconds: plan.secondsPerPoint ?? null,
      onGpuUnavailable: index === 0 ? hooks.onGpuUnavailable : undefined,
      ...(hooks.stdout !== undefined ? { stdout: hooks.stdout } : {}),
      ...(hooks.stderr !== undefined ? { stderr: hooks.stderr } : {}),
      onSample: (s) => {
        // One timeline for the run: each command's samples after the previous ones, stamped with its point.
        const x = { ...s, t: t0 + s.t, point: index };
        mine.push(x);
        samples.push(x);
        writer.sample(x);
        hooks.onSample?.(x);
      },
    });
    offset = t0 + res.seconds * 1000;
    last = res;
    imagesTotal += res.imagesTotal;
    if (res.cancelled) {
      cancelled = true;
      break;
    }
    const point = execPointOf(index, cell, command, res, mine);
    points.push(point);
    writer.point(point);
    hooks.onPoint?.(point, points.length, grid.length);
  }
  const measured = points.filter((p) => p.exec && p.exec.failure === null);
  const pick = measured.reduce<PointResult | null>((a, b) => (a === null || b.imagesPerSec > a.imagesPerSec ? b : a), null);
  const allFailed = points.length > 0 && measured.length === 0;
  const run: ProfileRun = {
    kind: 'exec',
    startedAt,
    finishedAt: new Date().toISOString(),
    status: cancelled ? 'cancelled' : allFailed ? 'failed' : 'ok',
    failure: allFailed ? { message: `every grid point failed; the first: ${points[0]!.exec!.failure}` } : null,
    plan: execPlan,
    machine,
    dataset,
    points,
    samples,
    // The fastest point's verdict, for readers that know only verdicts; the answer is the run's word.
    verdict: pick
      ? diagnoseExec(
          pick.exec!,
          samples.filter((s) => s.point === pick.index),
          machine,
        )
      : null,
  };
  const withAnswer: ProfileRun = { ...run, answer: points.length ? answerOf(run) : null };
  const runId = writer.finish(withAnswer);
  return {
    run: withAnswer,
    runId,
    outcome: {
      runId,
      exitCode: last?.exitCode ?? null,
      signal: last?.signal ?? null,
      imagesTotal,
      seconds: offset / 1000,
      stderrTail: last?.stderrTail ?? [],
      failure: withAnswer.failure?.message ?? null,
      verdict: withAnswer.verdict,
      answer: withAnswer.answer ?? null,
    },
  };
}

/**
 * Profiling as the CLI (`beton profile`) and the app (`profiles.start`) both do it: run a
 * sweep or the user's training command, and record the run — a failed sweep too, with what
 * it had measured. Each front end adds only its own reporting (progress lines, job events).
 */
import type { ExecOutcome, SweepOutcome } from '../api/job-results.js';
import { InterruptedError } from '../format/errors.js';
import { execOutcome, runExec, type ExecResult } from '../profile/exec/exec-mode.js';
import { diagnoseExec } from '../profile/verdict/exec-verdict.js';
import { ffcvPointCode } from '../export/ffcv-point.js';
import { failedSweepRun } from '../profile/sweep/failed-run.js';
import { machineInfo } from '../profile/sampling/machine.js';
import { profile, tryDatasetInfo } from '../profile/sweep/sweep.js';
import { answerOf } from '../profile/verdict/answer.js';
import type {
  EngineFailure,
  ExecPlan,
  MachineInfo,
  PointResult,
  ProfilePlan,
  ProfileRun,
  RunFailure,
  TelemetrySample,
} from '../api/profile-model.js';
import { RunWriter, type RunRecorder } from './run-writer.js';

export type { RunRecorder } from './run-writer.js';

/**
 * A run stopped by a signal (the abort's reason is an InterruptedError: `beton profile` got
 * SIGINT/SIGTERM/SIGHUP) keeps what it measured and is marked interrupted: status
 * 'cancelled' with failure code INTERRUPTED (read back as 'interrupted', core/runs/liveness.ts).
 */
function interruption(signal: AbortSignal | undefined): RunFailure | null {
  const why: unknown = signal?.aborted ? signal.reason : null;
  if (!(why instanceof InterruptedError)) return null;
  return { message: why.message, code: 'INTERRUPTED', signal: why.signal };
}

export interface SweepHooks {
  signal?: AbortSignal;
  /** Sample GPUs with nvidia-smi (default true). */
  gpu?: boolean;
  onSample?: (s: TelemetrySample) => void;
  onPoint?: (p: PointResult, done: number, total: number) => void;
  onNote?: (message: string) => void;
  /** What the sweep waits for, in words ("starting FFCV in … — numba compiles, about 30 s"), with points done and total. */
  onWait?: (message: string, done: number, total: number) => void;
  /** An engine failed (one line; the traceback in its detail); the others went on. */
  onEngineFailed?: (failure: EngineFailure) => void;
  /** A sweep that failed was recorded as this run (then its error is thrown as usual). */
  onFailedRecorded?: (runId: number) => void;
  /** The Python interpreter of the ffcv and torch engines (default: $BETON_PYTHON, else python3 on PATH). */
  python?: string | null;
}

/**
 * Sweeps the loader over the plan's grid and records the run. A sweep that fails (not one
 * that was cancelled) is recorded as failed with the points and samples it had, and its
 * error is rethrown; a database that cannot take that record does not hide the sweep's error.
 */
export async function profileSweep(
  plan: Partial<ProfilePlan> & { file: string },
  runs: RunRecorder,
  hooks: SweepHooks = {},
): Promise<{ run: ProfileRun; runId: number; outcome: SweepOutcome }> {
  const startedAt = new Date().toISOString();
  // Kept as they come, so a sweep that fails is recorded with what it had measured; and
  // recorded as they come, so a sweep whose process dies is in the runs as interrupted.
  const points: PointResult[] = [];
  const samples: TelemetrySample[] = [];
  const writer = new RunWriter(runs);
  let run: ProfileRun;
  try {
    run = await profile(plan, {
      signal: hooks.signal,
      gpu: hooks.gpu,
      onNote: hooks.onNote,
      onWait: hooks.onWait,
      onEngineFailed: hooks.onEngineFailed,
      onStart: (start) => writer.start(start),
      python: hooks.python,
      // The ffcv engine runs the exporter's code: what it measures is what `beton export` gives.
      ffcvCode: ffcvPointCode,
      onSample: (s) => {
        samples.push(s);
        writer.sample(s);
        hooks.onSample?.(s);
      },
      onPoint: (p, done, total) => {
        points.push(p);
        writer.point(p);
        hooks.onPoint?.(p, done, total);
      },
    });
  } catch (e) {
    const stopped = interruption(hooks.signal);
    if (!hooks.signal?.aborted || stopped) {
      const failed = await failedSweepRun(plan, startedAt, e, points, samples).catch(() => null);
      if (failed) {
        try {
          const id = writer.finish(stopped ? { ...failed, status: 'cancelled', failure: stopped } : failed);
          if (!stopped) hooks.onFailedRecorded?.(id);
        } catch {
          // The database's own failure must not hide the sweep's.
        }
      }
    } else if (writer.runId !== null) {
      try {
        writer.finish({ ...(await failedSweepRun(plan, startedAt, e, points, samples)), status: 'cancelled', failure: null });
      } catch {
        // as above
      }
    }
    throw e;
  }
  const stopped = interruption(hooks.signal);
  if (stopped) run = { ...run, status: 'cancelled', failure: stopped };
  const runId = writer.finish(run);
  return { run, runId, outcome: { runId, verdict: run.verdict, points: run.points, answer: run.answer ?? null } };
}

export interface ExecHooks {
  signal?: AbortSignal;
  gpu?: boolean;
  onSample?: (s: TelemetrySample) => void;
  onGpuUnavailable?: (reason: string) => void;
}

/** The record of a training command's run: the one place its fields are assembled. */
export function execRunRecord(
  plan: ExecPlan,
  machine: MachineInfo,
  startedAt: string,
  res: ExecResult,
  finishedAt: string = new Date().toISOString(),
): ProfileRun {
  const { status, failure } = execOutcome(res);
  const measured = res.samples.length > 0 || res.measures.steps > 0 || res.measures.imagesPerSec !== null;
  const run: ProfileRun = {
    kind: 'exec',
    startedAt,
    finishedAt,
    status,
    failure,
    plan: { command: plan.command, throughputRegex: plan.throughputRegex, file: plan.file },
    machine,
    dataset: plan.file ? tryDatasetInfo(plan.file) : null,
    points: [],
    samples: res.samples,
    // Every exec run that measured anything gets a verdict: from the probe's step lines when
    // it printed them (input-/compute-bound), else from its throughput and the samples.
    verdict: measured ? diagnoseExec(res.measures, res.samples, machine) : null,
  };
  return { ...run, answer: measured ? answerOf(run) : null };
}

/** What the app shows of a command's run (jobs:finished's result). */
export function execOutcomeOf(runId: number, run: ProfileRun, res: ExecResult): ExecOutcome {
  return {
    runId,
    exitCode: res.exitCode,
    signal: res.signal,
    imagesTotal: res.imagesTotal,
    seconds: res.seconds,
    stderrTail: res.stderrTail,
    failure: run.failure?.message ?? null,
    verdict: run.verdict,
    answer: run.answer ?? null,
  };
}

/**
 * Runs the user's training command, sampling it from outside, and records the run; a
 * command that exits non-zero is a run with status 'failed' (and why), not an exception.
 */
export async function profileExec(
  plan: ExecPlan,
  runs: RunRecorder,
  hooks: ExecHooks = {},
): Promise<{ run: ProfileRun; runId: number; result: ExecResult; outcome: ExecOutcome }> {
  const machine = await machineInfo();
  const startedAt = new Date().toISOString();
  const writer = new RunWriter(runs);
  const execPlan = { command: plan.command, throughputRegex: plan.throughputRegex, file: plan.file };
  writer.start({ kind: 'exec', startedAt, plan: execPlan, machine, dataset: plan.file ? tryDatasetInfo(plan.file) : null });
  let result: ExecResult;
  try {
    result = await runExec({
      command: plan.command,
      throughputRegex: plan.throughputRegex,
      signal: hooks.signal,
      gpu: hooks.gpu,
      maxSeconds: plan.secondsPerPoint ?? null,
      onSample: (s) => {
        writer.sample(s);
        hooks.onSample?.(s);
      },
      onGpuUnavailable: hooks.onGpuUnavailable,
    });
  } catch (e) {
    // The command could not start: nothing was measured; the started record says why.
    if (writer.runId !== null)
      try {
        writer.finish({
          kind: 'exec',
          startedAt,
          finishedAt: new Date().toISOString(),
          status: 'failed',
          failure: { message: e instanceof Error ? e.message : String(e) },
          plan: execPlan,
          machine,
          dataset: null,
          points: [],
          samples: [],
          verdict: null,
        });
      } catch {
        // the command's error is the one to report
      }
    throw e;
  }
  let run = execRunRecord(plan, machine, startedAt, result);
  const stopped = interruption(hooks.signal);
  if (stopped) run = { ...run, status: 'cancelled', failure: stopped };
  let runId: number;
  try {
    runId = writer.finish(run);
  } catch (e) {
    // A record the database refuses (a value no check caught) must not leave the run
    // "running" for ever: it is kept as failed, with why and without its verdict.
    run = {
      ...run,
      status: 'failed',
      failure: { message: `the run's record was refused: ${e instanceof Error ? e.message : String(e)}` },
      verdict: null,
    };
    runId = writer.finish(run);
  }
  return { run, runId, result, outcome: execOutcomeOf(runId, run, result) };
}

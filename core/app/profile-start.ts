/**
 * Starting a profile as both front ends do it (`beton profile`, the service's
 * `profiles.start`): the checks that refuse a request before any run exists, then the one
 * call that runs a sweep, a training command or a training-command sweep and records it.
 * What a front end adds is its own: the CLI's lines and exit code, the service's job events.
 */
import type { ExecOutcome, SweepOutcome } from '../api/job-results.js';
import type { ExecPlan, ProfilePlan, ProfileRun } from '../api/profile-model.js';
import type { ExecResult } from '../profile/exec/exec-mode.js';
import { captureCommand } from '../profile/exec/capture-command.js';
import { engineAvailability, type EngineAvailability } from '../profile/engines/python-engine.js';
import { checkEngines } from '../profile/sweep/check-engines.js';
import { profileExecSweep, type ExecSweepHooks } from './profile-exec-sweep.js';
import { profileExec, profileSweep, type ExecHooks, type RunRecorder, type SweepHooks } from './profile-run.js';

/** What a front end checks a throughput regex with before it asks. */
export { compileThroughputRegex } from '../profile/exec/exec-protocol.js';

/** A sweep of our loader (and the engines the plan names), or the user's training command (a grid: one run per point). */
export type ProfileRequest = { sweep: Partial<ProfilePlan> & { file: string }; python: string | null } | { exec: ExecPlan };

/** The hooks of every kind of profile; each kind reads the ones it has. */
export type ProfileHooks = Omit<SweepHooks, 'python'> & ExecHooks & ExecSweepHooks;

export interface ProfileStarted {
  run: ProfileRun;
  runId: number;
  outcome: SweepOutcome | ExecOutcome;
  /** A training command that failed (EXEC_FAILED): why, with its last line of stderr; null otherwise. */
  failure: string | null;
  /** A single command's run: its exit and counts (the CLI prints them). */
  result?: ExecResult;
}

/**
 * The refusals before a job or a run exists: a missing engine (no FFCV in that Python, a URL
 * for an engine that reads local files) is the request's error, not a failed run. This runs
 * the interpreter, which validates it.
 */
export async function checkProfile(request: ProfileRequest): Promise<void> {
  if ('sweep' in request) await checkEngines(request.sweep, request.python);
}

/**
 * Which engines this host runs (`profiles.engines`): each tried with the interpreter given,
 * else $BETON_PYTHON or python3. A child with a timeout: other requests are answered meanwhile.
 */
export async function engineAvailabilities(python: string | null): Promise<EngineAvailability[]> {
  return Promise.all((['beton', 'ffcv', 'torch'] as const).map((e) => engineAvailability(e, python)));
}

/**
 * Why `python` is not a Python interpreter (its error, or the last line it printed), or null
 * when it runs: `beton serve --python` checks its engines' interpreter once, at start.
 */
export async function pythonProblem(python: string): Promise<string | null> {
  const r = await captureCommand(python, ['-c', 'import sys; print(sys.version.split()[0])'], { timeoutMs: 30_000 });
  return r.status === 0 ? null : (r.error?.message ?? r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
}

/** A grid of the training command: it names workers or batch sizes to fill in. */
const isExecSweep = (plan: ExecPlan): boolean => Boolean(plan.workers?.length || plan.batchSizes?.length);

/** Runs the profile the request asks for and records it (a failed sweep too: profile-run.ts). */
export async function runProfile(request: ProfileRequest, runs: RunRecorder, hooks: ProfileHooks = {}): Promise<ProfileStarted> {
  if ('sweep' in request) {
    const r = await profileSweep(request.sweep, runs, { ...hooks, python: request.python });
    return { ...r, failure: null };
  }
  if (isExecSweep(request.exec)) {
    const r = await profileExecSweep(request.exec, runs, hooks);
    return { ...r, failure: r.outcome.failure };
  }
  const r = await profileExec(request.exec, runs, hooks);
  // A command that exits non-zero failed, whatever it printed: said with its exit code and stderr.
  const tail = r.result.stderrTail;
  const failure = r.outcome.failure ? `${r.outcome.failure}${tail.length ? `: ${tail[tail.length - 1]}` : ''}` : null;
  return { ...r, failure };
}

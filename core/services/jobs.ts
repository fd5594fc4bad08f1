import { randomUUID } from 'node:crypto';
import type { ApiEvent, FinishedEvent, FinishedEventOf, JobKind, JobResults, ProgressEvent } from '../api/contract.js';
import type { TelemetrySample } from '../api/profile-model.js';
import { apiErrorOf, ServiceError } from './service-error.js';
import { BetonError } from '../format/errors.js';

interface Job<K extends JobKind> {
  kind: K;
  controller: AbortController;
  lastProgress: number;
  pending: ProgressEvent | null;
  timer: NodeJS.Timeout | null;
  /** Ends the job as cancelled if the work has not stopped `cancelGraceMs` after a cancel. */
  giveUp: NodeJS.Timeout | null;
  finish(data: Omit<FinishedEventOf<K>, 'jobId' | 'kind'>): void;
}

/**
 * A job whose work ran to its end but failed with something to show (a training command's
 * exit code and stderr, the run it recorded): returned, not thrown, so `jobs:finished` says
 * 'failed' and still carries the result.
 */
export class JobFailed<R> {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly result: R,
  ) {}
}

/** What a job's work gets: its id, its signal, and where its progress and samples go. */
export interface JobContext {
  jobId: string;
  signal: AbortSignal;
  progress: (p: Omit<ProgressEvent, 'jobId' | 'kind'>) => void;
  sample: (s: TelemetrySample) => void;
}

/** The one place a job's end meets the contract's per-kind union (TS cannot relate a generic K to it). */
const finishedEvent = <K extends JobKind>(e: FinishedEventOf<K>): FinishedEvent => e as FinishedEvent;

/**
 * Jobs of one kind that may run at once (issue 29: 20 checks at once took 1 GB and made every
 * answer 5.4 s late). Each check and build already uses the machine's cores; more in parallel
 * only share them. A start past the limit is refused with BUSY, at once.
 */
export const JOB_LIMITS: Readonly<Record<JobKind, number>> = { check: 4, build: 4, profile: 2 };

export interface JobManagerOptions {
  /** Per-kind limits (default JOB_LIMITS). */
  limits?: Partial<Record<JobKind, number>>;
  /**
   * After a cancel, how long the work may take to stop before the job is reported cancelled
   * anyway (default 10 s): work that ignores its signal (a stuck worker, a call with no abort)
   * must not leave the client "Cancelling…" for ever. What it does later is ignored.
   */
  cancelGraceMs?: number;
}

/**
 * Long jobs: an id at once, progress throttled to ≤ 10 events/s (the last one is never
 * dropped), samples passed through, and exactly one `jobs:finished` whatever happens: the
 * work resolves, returns a JobFailed, throws (also synchronously), is cancelled, or ignores
 * a cancel past the grace period; a listener that throws cannot swallow it.
 */
export class JobManager {
  private readonly jobs = new Map<string, Job<JobKind>>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly cancelGraceMs: number;

  constructor(
    private readonly emit: (e: ApiEvent) => void,
    opts: JobManagerOptions = {},
  ) {
    this.cancelGraceMs = opts.cancelGraceMs ?? 10_000;
    this.limits = { ...JOB_LIMITS, ...opts.limits };
  }

  private readonly limits: Record<JobKind, number>;

  /** Emits without letting a listener's exception reach the job's promise chain. */
  private safeEmit(e: ApiEvent): void {
    try {
      this.emit(e);
    } catch {
      // A broken listener (a closed stream) must not stop the event reaching the others or end the job twice.
    }
  }

  start<K extends JobKind>(kind: K, run: (ctx: JobContext) => Promise<JobResults[K] | JobFailed<JobResults[K]>>): string {
    const limit = this.limits[kind];
    if ([...this.jobs.values()].filter((j) => j.kind === kind).length >= limit)
      throw new ServiceError('BUSY', `${limit} ${kind} job(s) already running; wait for one to finish or cancel it`);
    const jobId = randomUUID();
    let finished = false;
    const flush = (): void => {
      if (job.timer) clearTimeout(job.timer);
      job.timer = null;
      if (job.pending) {
        this.safeEmit({ event: 'jobs:progress', data: job.pending });
        job.pending = null;
        job.lastProgress = Date.now();
      }
    };
    const job: Job<K> = {
      kind,
      controller: new AbortController(),
      lastProgress: 0,
      pending: null,
      timer: null,
      giveUp: null,
      finish: (data) => {
        if (finished) return;
        finished = true;
        if (job.giveUp) clearTimeout(job.giveUp);
        flush();
        this.jobs.delete(jobId);
        this.safeEmit({ event: 'jobs:finished', data: finishedEvent<K>({ jobId, kind, ...data }) });
        if (this.jobs.size === 0) for (const wake of [...this.idleWaiters]) wake();
      },
    };
    this.jobs.set(jobId, job);
    const progress = (p: Omit<ProgressEvent, 'jobId' | 'kind'>): void => {
      if (finished) return;
      job.pending = { jobId, kind, ...p };
      const wait = 100 - (Date.now() - job.lastProgress);
      if (wait <= 0) flush();
      else job.timer ??= setTimeout(flush, wait);
    };
    const sample = (s: TelemetrySample): void => {
      if (!finished) this.safeEmit({ event: 'jobs:sample', data: { jobId, sample: s } });
    };
    const aborted = (): boolean => job.controller.signal.aborted;
    // Started on the next tick, so the caller has the id before any event about it.
    setImmediate(() => {
      // Through a promise, so work that throws before returning one still ends the job.
      Promise.resolve()
        .then(() => run({ jobId, signal: job.controller.signal, progress, sample }))
        .then((result) => {
          if (result instanceof JobFailed)
            job.finish(
              aborted()
                ? { status: 'cancelled', message: 'cancelled', result: result.result }
                : { status: 'failed', code: result.code, message: result.message, result: result.result },
            );
          else job.finish(aborted() ? { status: 'cancelled', message: 'cancelled', result } : { status: 'ok', result });
        })
        .catch((e: unknown) =>
          job.finish(aborted() ? { status: 'cancelled', message: 'cancelled' } : { status: 'failed', ...apiErrorOf(e) }),
        );
    });
    return jobId;
  }

  /** Cancels job `jobId` when it is of `kind` (checks.cancel must not stop a build); false when there is no such job. */
  cancel(jobId: string, kind?: JobKind): boolean {
    const job = this.jobs.get(jobId);
    if (!job || (kind !== undefined && job.kind !== kind)) return false;
    if (job.controller.signal.aborted) return true;
    job.controller.abort(new BetonError('CANCELLED', 'cancelled by the user'));
    job.giveUp = setTimeout(
      () =>
        job.finish({
          status: 'cancelled',
          message: `cancelled; the work had not stopped ${Math.round(this.cancelGraceMs / 1000)} s after the cancel and was left to end by itself`,
        }),
      this.cancelGraceMs,
    );
    job.giveUp.unref();
    return true;
  }

  /** Jobs started and not finished yet. */
  get running(): number {
    return this.jobs.size;
  }

  /**
   * Resolves when no job runs any more (true), or after `timeoutMs` (false): a host that
   * quits waits here for cancelled builds to remove their temporary files.
   */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.jobs.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean): void => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(idle);
      };
      const wake = (): void => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleWaiters.add(wake);
    });
  }

  cancelAll(): void {
    for (const id of [...this.jobs.keys()]) this.cancel(id);
  }
}

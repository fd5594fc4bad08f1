import { randomUUID } from 'node:crypto';
import type { ApiEvent, FinishedEvent, JobKind, ProgressEvent } from '../api/contract.js';
import { apiErrorOf } from './service-error.js';

interface Job {
  kind: JobKind;
  controller: AbortController;
  lastProgress: number;
  pending: ProgressEvent | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Long jobs: an id at once, progress throttled to ≤ 10 events/s (the last one is never
 * dropped), samples passed through, and exactly one `jobs:finished` whatever happens.
 */
export class JobManager {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly emit: (e: ApiEvent) => void) {}

  start(kind: JobKind, run: (ctx: { jobId: string; signal: AbortSignal; progress: (p: Omit<ProgressEvent, 'jobId' | 'kind'>) => void; sample: (s: unknown) => void }) => Promise<unknown>): string {
    const jobId = randomUUID();
    const job: Job = { kind, controller: new AbortController(), lastProgress: 0, pending: null, timer: null };
    this.jobs.set(jobId, job);
    const flush = (): void => {
      if (job.timer) clearTimeout(job.timer);
      job.timer = null;
      if (job.pending) {
        this.emit({ event: 'jobs:progress', data: job.pending });
        job.pending = null;
        job.lastProgress = Date.now();
      }
    };
    const progress = (p: Omit<ProgressEvent, 'jobId' | 'kind'>): void => {
      job.pending = { jobId, kind, ...p };
      const wait = 100 - (Date.now() - job.lastProgress);
      if (wait <= 0) flush();
      else job.timer ??= setTimeout(flush, wait);
    };
    const sample = (s: unknown): void => this.emit({ event: 'jobs:sample', data: { jobId, sample: s } });
    const finish = (data: Omit<FinishedEvent, 'jobId' | 'kind'>): void => {
      flush();
      this.jobs.delete(jobId);
      this.emit({ event: 'jobs:finished', data: { jobId, kind, ...data } });
    };
    // Started on the next tick, so the caller has the id before any event about it.
    setImmediate(() => {
      run({ jobId, signal: job.controller.signal, progress, sample })
        .then((result) => finish(job.controller.signal.aborted ? { status: 'cancelled', message: 'cancelled', result } : { status: 'ok', result }))
        .catch((e: unknown) => finish(job.controller.signal.aborted ? { status: 'cancelled', message: 'cancelled' } : { status: 'failed', ...apiErrorOf(e) }));
    });
    return jobId;
  }

  cancel(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    if (!job) return false;
    job.controller.abort(new Error('cancelled by the user'));
    return true;
  }

  cancelAll(): void {
    for (const id of this.jobs.keys()) this.cancel(id);
  }
}

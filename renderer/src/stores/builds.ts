import { create } from 'zustand';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { FinishedEvent, ProgressEvent } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { appendBounded } from '../lib/series.js';
import { asBuildReport, type BuildReport } from '../lib/types.js';

/** The throughput chart keeps a point at most this often… */
export const HISTORY_INTERVAL_MS = 250;
/** …and at most this many (older ones are thinned, the shape stays). */
export const HISTORY_MAX = 240;

export interface HistoryPoint {
  /** Seconds since the build started. */
  t: number;
  /** Samples/s. */
  rate: number;
  done: number;
}

export type JobStatus = 'running' | 'ok' | 'cancelled' | 'failed';

export interface BuildJob {
  id: string;
  config: BuildConfigInput | null;
  startedAt: number;
  finishedAt: number | null;
  status: JobStatus;
  progress: { done: number; total: number | null; rate: number; etaMs: number | null } | null;
  history: HistoryPoint[];
  lastHistoryAt: number;
  report: BuildReport | null;
  message: string | null;
  cancelling: boolean;
}

interface BuildsState {
  jobs: Record<string, BuildJob>;
  /** Newest first. */
  order: string[];
  currentId: string | null;
  starting: boolean;
  startError: ApiError | null;
  start(config: BuildConfigInput): Promise<string | null>;
  cancel(id?: string): Promise<void>;
  select(id: string): void;
  onProgress(e: ProgressEvent, now?: number): void;
  onFinished(e: FinishedEvent, now?: number): void;
}

function newJob(id: string, now: number, config: BuildConfigInput | null): BuildJob {
  return { id, config, startedAt: now, finishedAt: null, status: 'running', progress: null, history: [], lastHistoryAt: 0, report: null, message: null, cancelling: false };
}

export const useBuildsStore = create<BuildsState>()((set, get) => {
  /** The job, created if an event arrived before builds.start answered (or from another window). */
  const ensure = (id: string, now: number): BuildJob => get().jobs[id] ?? newJob(id, now, null);
  const put = (job: BuildJob): void =>
    set((s) => ({ jobs: { ...s.jobs, [job.id]: job }, order: s.order.includes(job.id) ? s.order : [job.id, ...s.order], currentId: s.currentId ?? job.id }));

  return {
    jobs: {},
    order: [],
    currentId: null,
    starting: false,
    startError: null,
    start: async (config) => {
      set({ starting: true, startError: null });
      try {
        const { jobId } = await call('builds.start', { config });
        const job = get().jobs[jobId];
        put(job ? { ...job, config } : newJob(jobId, Date.now(), config));
        set({ starting: false, currentId: jobId });
        return jobId;
      } catch (e) {
        set({ starting: false, startError: toApiError(e) });
        return null;
      }
    },
    cancel: async (id) => {
      const jobId = id ?? get().currentId;
      const job = jobId ? get().jobs[jobId] : undefined;
      if (!job || job.status !== 'running') return;
      put({ ...job, cancelling: true });
      try {
        const { cancelled } = await call('builds.cancel', { jobId: job.id });
        // No such job on the host any more: no jobs:finished will come, so stop "Cancelling…".
        const cur = get().jobs[job.id];
        if (!cancelled && cur?.status === 'running') put({ ...cur, status: 'cancelled', cancelling: false, finishedAt: Date.now(), message: 'The host no longer runs this build (it ended, or the host restarted).' });
      } catch (e) {
        const cur = get().jobs[job.id];
        if (cur) put({ ...cur, cancelling: false, message: toApiError(e).message });
      }
    },
    select: (id) => {
      if (get().jobs[id]) set({ currentId: id });
    },
    onProgress: (e, now = Date.now()) => {
      if (e.kind !== 'build') return;
      const job = ensure(e.jobId, now);
      if (job.status !== 'running') return;
      const done = e.total !== null && e.done >= e.total;
      const h = appendBounded(job.history, { t: (now - job.startedAt) / 1000, rate: e.rate, done: e.done }, { now, lastAt: job.lastHistoryAt, minIntervalMs: HISTORY_INTERVAL_MS, max: HISTORY_MAX, force: done });
      put({ ...job, progress: { done: e.done, total: e.total, rate: e.rate, etaMs: e.etaMs }, history: h.series, lastHistoryAt: h.lastAt });
    },
    onFinished: (e, now = Date.now()) => {
      if (e.kind !== 'build') return;
      const job = ensure(e.jobId, now);
      const report = e.status === 'ok' ? asBuildReport(e.result) : null;
      let progress = job.progress;
      let history = job.history;
      if (report) {
        const items = report.source?.items ?? report.numSamples + report.skipped.length;
        progress = { done: items, total: items, rate: report.samplesPerSec, etaMs: 0 };
        history = appendBounded(history, { t: (now - job.startedAt) / 1000, rate: progress.rate, done: items }, { now, lastAt: job.lastHistoryAt, minIntervalMs: 0, max: HISTORY_MAX, force: true }).series;
      }
      put({
        ...job,
        status: e.status,
        finishedAt: now,
        report,
        progress,
        history,
        cancelling: false,
        message: e.status === 'ok' ? (report ? null : 'The build finished but sent no report.') : (e.message ?? e.status),
      });
    },
  };
});

/** The last successful build (for "export this build" and defaults elsewhere). */
export function lastOkBuild(s: Pick<BuildsState, 'jobs' | 'order'>): BuildJob | null {
  for (const id of s.order) {
    const j = s.jobs[id];
    if (j && j.status === 'ok' && j.report) return j;
  }
  return null;
}

import { create } from 'zustand';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { BuildHistoryEntry, FinishedEvent, ProgressEvent } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { keyOf } from '../lib/keyed.js';
import { appendBounded } from '../lib/series.js';
import type { BuildReport } from '../lib/types.js';

/** The throughput chart keeps a point at most this often… */
export const HISTORY_INTERVAL_MS = 250;
/** …and at most this many (older ones are thinned, the shape stays). */
export const HISTORY_MAX = 240;
/*
 * The rate shown and charted is the host's: samples over the build's last second by the
 * writer's clock (ProgressEvent.recentRate, core/writer/rate-window.ts), one definition for
 * the chart and the number beside it. `rate` is the average since the start, start-up
 * included (what the CLI prints), far below the throughput early on.
 */

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
  /** rate: the host's samples/s over the last second (null until it has one); the chart's last point. */
  progress: { done: number; total: number | null; rate: number | null; etaMs: number | null } | null;
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
  /** The config startError answered (keyOf(config)): a changed form is a new question. */
  startErrorKey: string | null;
  /** overwrite: replace an existing output (the host refuses with OUTPUT_EXISTS otherwise; the Sources screen asks). */
  start(config: BuildConfigInput, overwrite?: boolean): Promise<string | null>;
  cancel(id?: string): Promise<void>;
  select(id: string): void;
  /** The host's builds (builds.list), for a page that was reloaded: those not known here are added. */
  loadHistory(): Promise<void>;
  onProgress(e: ProgressEvent, now?: number): void;
  onFinished(e: FinishedEvent, now?: number): void;
}

function newJob(id: string, now: number, config: BuildConfigInput | null): BuildJob {
  return {
    id,
    config,
    startedAt: now,
    finishedAt: null,
    status: 'running',
    progress: null,
    history: [],
    lastHistoryAt: 0,
    report: null,
    message: null,
    cancelling: false,
  };
}

export const useBuildsStore = create<BuildsState>()((set, get) => {
  /** The job, created if an event arrived before builds.start answered (or from another window). */
  const ensure = (id: string, now: number): BuildJob => get().jobs[id] ?? newJob(id, now, null);
  const put = (job: BuildJob): void =>
    set((s) => ({
      jobs: { ...s.jobs, [job.id]: job },
      order: s.order.includes(job.id) ? s.order : [job.id, ...s.order],
      currentId: s.currentId ?? job.id,
    }));

  return {
    jobs: {},
    order: [],
    currentId: null,
    starting: false,
    startError: null,
    startErrorKey: null,
    start: async (config, overwrite = false) => {
      set({ starting: true, startError: null, startErrorKey: null });
      try {
        const { jobId } = await call('builds.start', { config, ...(overwrite ? { overwrite: true } : {}) });
        const job = get().jobs[jobId];
        put(job ? { ...job, config } : newJob(jobId, Date.now(), config));
        set({ starting: false, currentId: jobId });
        return jobId;
      } catch (e) {
        set({ starting: false, startError: toApiError(e), startErrorKey: keyOf(config) });
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
        if (!cancelled && cur?.status === 'running')
          put({
            ...cur,
            status: 'cancelled',
            cancelling: false,
            finishedAt: Date.now(),
            message: 'The host no longer runs this build (it ended, or the host restarted).',
          });
      } catch (e) {
        const cur = get().jobs[job.id];
        if (cur) put({ ...cur, cancelling: false, message: toApiError(e).message });
      }
    },
    select: (id) => {
      if (get().jobs[id]) set({ currentId: id });
    },
    loadHistory: async () => {
      let entries: BuildHistoryEntry[];
      try {
        entries = await call('builds.list', {});
      } catch {
        return; // The host cannot be reached (the connection banner says so): the page starts empty.
      }
      const known = get().jobs;
      const jobs = { ...known };
      const order = [...get().order];
      // Oldest first, so each lands before the ones already listed (newest first in `order`).
      for (const e of [...entries].reverse()) {
        if (known[e.jobId]) continue;
        const items = e.report ? (e.report.source?.items ?? e.report.numSamples + e.report.skipped.length) : null;
        jobs[e.jobId] = {
          ...newJob(e.jobId, e.startedAt, e.config),
          finishedAt: e.finishedAt,
          status: e.status,
          report: e.report,
          message: e.message,
          progress: items === null ? null : { done: items, total: items, rate: null, etaMs: 0 },
        };
        order.push(e.jobId);
      }
      order.sort((a, b) => jobs[b]!.startedAt - jobs[a]!.startedAt);
      set({ jobs, order, currentId: get().currentId ?? order[0] ?? null });
    },
    onProgress: (e, now = Date.now()) => {
      if (e.kind !== 'build') return;
      const job = ensure(e.jobId, now);
      if (job.status !== 'running') return;
      const done = e.total !== null && e.done >= e.total;
      // The host's clock when it says (events arrive late and in bursts); else arrival time.
      const t = e.elapsedMs ?? now - job.startedAt;
      const rate = e.recentRate ?? null;
      // The chart and the Rate stat show the same number; a report without a rate yet (the first) adds no point.
      const h =
        rate === null
          ? { series: job.history, lastAt: job.lastHistoryAt }
          : appendBounded(
              job.history,
              { t: t / 1000, rate, done: e.done },
              { now, lastAt: job.lastHistoryAt, minIntervalMs: HISTORY_INTERVAL_MS, max: HISTORY_MAX, force: done },
            );
      put({
        ...job,
        progress: { done: e.done, total: e.total, rate: rate ?? job.progress?.rate ?? null, etaMs: e.etaMs },
        history: h.series,
        lastHistoryAt: h.lastAt,
      });
    },
    onFinished: (e, now = Date.now()) => {
      if (e.kind !== 'build') return;
      const job = ensure(e.jobId, now);
      const report = e.status === 'ok' ? (e.result ?? null) : null;
      let progress = job.progress;
      let history = job.history;
      if (report) {
        const items = report.source?.items ?? report.numSamples + report.skipped.length;
        // The last stretch as the host measured it (its last report's rate); the report's own
        // samplesPerSec is the average over the whole build, shown as such.
        const tEnd = report.elapsedMs;
        let rate = job.progress?.rate ?? null;
        // No rate reported (a build of a few hundred ms): the window reaches back to the start,
        // i.e. the whole build.
        if (rate === null && tEnd > 0) rate = (items * 1000) / tEnd;
        progress = { done: items, total: items, rate: rate ?? job.progress?.rate ?? null, etaMs: 0 };
        if (rate !== null)
          history = appendBounded(
            history,
            { t: tEnd / 1000, rate, done: items },
            { now, lastAt: job.lastHistoryAt, minIntervalMs: 0, max: HISTORY_MAX, force: true },
          ).series;
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

/** The start error for this config, or null when the form has changed since (the old error no longer applies). */
export function startErrorFor(s: Pick<BuildsState, 'startError' | 'startErrorKey'>, config: BuildConfigInput | null): ApiError | null {
  return config && s.startErrorKey === keyOf(config) ? s.startError : null;
}

/** The newest successful build that wrote `path` (this session): the build to export with that file. */
export function buildFor(s: Pick<BuildsState, 'jobs' | 'order'>, path: string): BuildJob | null {
  if (!path) return null;
  for (const id of s.order) {
    const j = s.jobs[id];
    if (j && j.status === 'ok' && j.report && j.config && j.report.path === path) return j;
  }
  return null;
}

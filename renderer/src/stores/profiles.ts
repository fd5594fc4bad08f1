import { create } from 'zustand';
import type { ApiEvent, FinishedEvent, Params, ProgressEvent, SampleEvent } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { DEFAULT_PROFILE_FORM, type ProfileForm } from '../lib/profile-form.js';
import { appendBounded } from '../lib/series.js';
import { outcomeWithKind, type PointConfig, type ProfileOutcome, type TelemetrySample } from '../lib/types.js';

/** Telemetry kept for the live charts (about 4 per second; older ones are thinned past this). */
export const SAMPLES_MAX = 1200;

export interface ProfileJob {
  id: string;
  mode: 'grid' | 'exec';
  grid: PointConfig[];
  startedAt: number;
  status: 'running' | 'ok' | 'cancelled' | 'failed';
  progress: { done: number; total: number | null; message: string | null } | null;
  samples: TelemetrySample[];
  outcome: ProfileOutcome | null;
  message: string | null;
  /** A failed job's code from the host (EXEC_FAILED, TOO_FEW_SAMPLES, …). */
  code: string | null;
  cancelling: boolean;
}

interface ProfilesState {
  form: ProfileForm;
  /** Samples in the chosen file (from datasets.inspect), to check batch sizes. */
  fileSamples: { path: string; numSamples: number } | null;
  job: ProfileJob | null;
  starting: boolean;
  startError: ApiError | null;
  setForm(patch: Partial<ProfileForm>): void;
  checkFile(): Promise<void>;
  start(params: Params<'profiles.start'>, grid: PointConfig[]): Promise<string | null>;
  cancel(): Promise<void>;
  onProgress(e: ProgressEvent): void;
  onSample(e: SampleEvent): void;
  onFinished(e: FinishedEvent, now?: number): void;
}

/** Events that arrived while profiles.start was in flight (replayed once the id is known). */
let early: ApiEvent[] = [];

export const useProfilesStore = create<ProfilesState>()((set, get) => {
  const update = (jobId: string, f: (j: ProfileJob) => ProfileJob | null): boolean => {
    const j = get().job;
    // Another job's event: ignored, unless ours may be it (start still in flight).
    if (!j || j.id !== jobId) return !get().starting;
    const next = f(j);
    if (next) set({ job: next });
    return true;
  };
  const keepEarly = (e: ApiEvent): void => {
    if (get().starting && early.length < 500) early.push(e);
  };
  return {
    form: DEFAULT_PROFILE_FORM,
    fileSamples: null,
    job: null,
    starting: false,
    startError: null,
    setForm: (patch) => set((s) => ({ form: { ...s.form, ...patch } })),
    checkFile: async () => {
      const path = get().form.file.trim();
      if (!path || get().fileSamples?.path === path) return;
      try {
        const r = await call('datasets.inspect', { path });
        if (get().form.file.trim() === path) set({ fileSamples: { path, numSamples: r.numSamples } });
      } catch {
        set({ fileSamples: null }); // the start call reports what is wrong with the file
      }
    },
    start: async (params, grid) => {
      if (get().job?.status === 'running') return null;
      early = [];
      set({ starting: true, startError: null });
      try {
        const { jobId } = await call('profiles.start', params);
        set({
          starting: false,
          job: { id: jobId, mode: 'exec' in params ? 'exec' : 'grid', grid, startedAt: Date.now(), status: 'running', progress: null, samples: [], outcome: null, message: null, code: null, cancelling: false },
        });
        const replay = early.filter((e) => 'jobId' in e.data && e.data.jobId === jobId);
        early = [];
        for (const e of replay) {
          if (e.event === 'jobs:progress') get().onProgress(e.data);
          else if (e.event === 'jobs:sample') get().onSample(e.data);
          else if (e.event === 'jobs:finished') get().onFinished(e.data);
        }
        return jobId;
      } catch (e) {
        early = [];
        set({ starting: false, startError: toApiError(e) });
        return null;
      }
    },
    cancel: async () => {
      const j = get().job;
      if (!j || j.status !== 'running') return;
      set({ job: { ...j, cancelling: true } });
      try {
        const { cancelled } = await call('profiles.cancel', { jobId: j.id });
        // The host no longer has the job (it ended and the event was missed, or the host
        // restarted): no jobs:finished will come, so "Cancelling…" must end here.
        const cur = get().job;
        if (!cancelled && cur?.id === j.id && cur.status === 'running') set({ job: { ...cur, status: 'cancelled', cancelling: false, message: 'The host no longer runs this job (it ended, or the host restarted); see Runs for what was recorded.' } });
      } catch (e) {
        const cur = get().job;
        if (cur?.id === j.id) set({ job: { ...cur, cancelling: false, message: toApiError(e).message } });
      }
    },
    onProgress: (e) => {
      if (e.kind !== 'profile') return;
      if (!update(e.jobId, (j) => (j.status === 'running' ? { ...j, progress: { done: e.done, total: e.total, message: e.message ?? null } } : null))) keepEarly({ event: 'jobs:progress', data: e });
    },
    onSample: (e) => {
      const s = e.sample;
      const handled = update(e.jobId, (j) => {
        if (j.status !== 'running') return null;
        const next = appendBounded(j.samples, s, { now: 0, lastAt: 0, minIntervalMs: 0, max: SAMPLES_MAX, force: true });
        return { ...j, samples: next.series };
      });
      if (!handled) keepEarly({ event: 'jobs:sample', data: e });
    },
    onFinished: (e) => {
      if (e.kind !== 'profile') return;
      const handled = update(e.jobId, (j) => {
        const outcome = e.result ? outcomeWithKind(e.result) : null;
        const total = j.progress?.total ?? j.grid.length;
        return {
          ...j,
          status: e.status,
          outcome,
          cancelling: false,
          progress: e.status === 'ok' ? { done: total, total, message: null } : j.progress,
          message: e.status === 'ok' ? null : (e.message ?? e.status),
          code: e.status === 'failed' ? (e.code ?? 'FAILED') : null,
        };
      });
      if (!handled) keepEarly({ event: 'jobs:finished', data: e });
    },
  };
});

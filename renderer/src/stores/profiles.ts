import { create } from 'zustand';
import type { ApiEvent, FinishedEvent, Params, ProgressEvent, SampleEvent } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { fitBatchSize } from '../lib/batch-size.js';
import { keyOf } from '../lib/keyed.js';
import { DEFAULT_PROFILE_FORM, type ProfileForm } from '../lib/profile-form.js';
import { appendBounded } from '../lib/series.js';
import { outcomeWithKind, type EngineStatus, type PointConfig, type ProfileOutcome, type TelemetrySample } from '../lib/types.js';

/** Telemetry kept for the live charts (about 4 per second; older ones are thinned past this). */
export const SAMPLES_MAX = 1200;

export interface ProfileJob {
  id: string;
  mode: 'grid' | 'exec';
  grid: PointConfig[];
  startedAt: number;
  /** 'unknown': the connection to the server was lost while it ran (it may have died with the server). */
  status: 'running' | 'ok' | 'cancelled' | 'failed' | 'unknown';
  /** done: points finished; measuring: the index of the point the newest telemetry belongs to. */
  progress: { done: number; total: number | null; message: string | null; measuring?: number | null } | null;
  /** What it was started with: the sweep's file, or the command run (exec). */
  file: string | null;
  /** The swept dataset's fields when known (datasets.inspect): what its rate counts (lib/format.ts rateUnit). */
  schema?: ReadonlyArray<{ type: string }> | null;
  /** The sweep's plan as sent (decoder, flip, batches ahead: what "Export the best loader" carries over). */
  plan?: Extract<Params<'profiles.start'>, { plan: unknown }>['plan'] | null;
  command: string | null;
  samples: TelemetrySample[];
  outcome: ProfileOutcome | null;
  message: string | null;
  /** A failed job's code from the host (EXEC_FAILED, TOO_FEW_SAMPLES, …). */
  code: string | null;
  cancelling: boolean;
}

interface ProfilesState {
  form: ProfileForm;
  /** Samples in the chosen file (from datasets.inspect), to check batch sizes, and its fields' types (the rate's unit). */
  fileSamples: { path: string; numSamples: number; schema?: Array<{ type: string }> | null } | null;
  job: ProfileJob | null;
  starting: boolean;
  startError: ApiError | null;
  /** The params startError answered (keyOf(params)). */
  startErrorKey: string | null;
  /** Inputs the user has edited: an empty required input is not an error before it is. */
  touched: Partial<Record<keyof ProfileForm, true>>;
  /** Which engines this host can run (profiles.engines), null until asked. */
  engineStatus: EngineStatus[] | null;
  /** The answer's action that last prefilled the form ("Prefilled from the answer: …"), until the form is edited by hand. */
  prefill: string | null;
  setPrefill(note: string | null): void;
  loadEngines(): Promise<void>;
  setForm(patch: Partial<ProfileForm>): void;
  checkFile(): Promise<void>;
  start(params: Params<'profiles.start'>, grid: PointConfig[]): Promise<string | null>;
  cancel(): Promise<void>;
  onProgress(e: ProgressEvent): void;
  onSample(e: SampleEvent): void;
  onFinished(e: FinishedEvent, now?: number): void;
  /** The event stream dropped: a running job's state is unknown until the server says more. */
  onConnectionLost(): void;
}

/** The inspected fields of `file`, if the file inspected is that one. */
const schemaOf = (fs: ProfilesState['fileSamples'], file: string): ProfileJob['schema'] =>
  fs && fs.path === file ? (fs.schema ?? null) : null;

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
    startErrorKey: null,
    touched: {},
    engineStatus: null,
    prefill: null,
    setPrefill: (prefill) => set({ prefill }),
    loadEngines: async () => {
      if (get().engineStatus) return;
      // The page and its host ship together, so the host answers this; while it cannot (a lost
      // connection, which the banner reports) the status stays unknown and the form offers our
      // loader only (EnginesField), until the screen asks again.
      const status = await call('profiles.engines', {}).catch(() => null);
      if (status) set({ engineStatus: status });
    },
    setForm: (patch) =>
      set((s) => {
        const form = { ...s.form, ...patch };
        const touched = { ...s.touched };
        for (const k of Object.keys(patch) as Array<keyof ProfileForm>) if (patch[k] !== s.form[k]) touched[k] = true;
        // A dataset already inspected sizes the untouched default batch when it is chosen again.
        const fs = s.fileSamples;
        if (!touched.batchSizes && fs && fs.path === form.file.trim())
          form.batchSizes = String(fitBatchSize(DEFAULT_PROFILE_FORM.batchSizes, fs.numSamples));
        // A hand edit ends the "prefilled from the answer" note (the action sets it again after its own edit).
        return { form, touched, prefill: null };
      }),
    checkFile: async () => {
      const path = get().form.file.trim();
      if (!path || get().fileSamples?.path === path) return;
      try {
        const r = await call('datasets.inspect', { path });
        const s = get();
        if (s.form.file.trim() !== path) return;
        // The default batch size follows the dataset (no larger than it) until the user types one.
        const fitted = s.touched.batchSizes
          ? {}
          : { form: { ...s.form, batchSizes: String(fitBatchSize(DEFAULT_PROFILE_FORM.batchSizes, r.numSamples)) } };
        // A host's answer without fields (older, or a test double): the unit stays images/s.
        const schema = Array.isArray(r.fields) ? r.fields.map((f) => ({ type: f.type })) : null;
        set({ fileSamples: { path, numSamples: r.numSamples, schema }, ...fitted });
      } catch {
        set({ fileSamples: null }); // the start call reports what is wrong with the file
      }
    },
    start: async (params, grid) => {
      if (get().job?.status === 'running') return null;
      early = [];
      set({ starting: true, startError: null, startErrorKey: null });
      try {
        const { jobId } = await call('profiles.start', params);
        const inputs =
          'exec' in params
            ? { mode: 'exec' as const, file: params.exec.file ?? null, command: params.exec.command }
            : {
                mode: 'grid' as const,
                file: params.plan.file,
                command: null,
                plan: params.plan,
                schema: schemaOf(get().fileSamples, params.plan.file),
              };
        set({
          starting: false,
          job: {
            id: jobId,
            ...inputs,
            grid,
            startedAt: Date.now(),
            status: 'running',
            progress: null,
            samples: [],
            outcome: null,
            message: null,
            code: null,
            cancelling: false,
          },
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
        set({ starting: false, startError: toApiError(e), startErrorKey: keyOf(params) });
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
        if (!cancelled && cur?.id === j.id && cur.status === 'running')
          set({
            job: {
              ...cur,
              status: 'cancelled',
              cancelling: false,
              message: 'The host no longer runs this job (it ended, or the host restarted); see Runs for what was recorded.',
            },
          });
      } catch (e) {
        const cur = get().job;
        if (cur?.id === j.id) set({ job: { ...cur, cancelling: false, message: toApiError(e).message } });
      }
    },
    onProgress: (e) => {
      if (e.kind !== 'profile') return;
      if (
        !update(e.jobId, (j) =>
          j.status === 'running'
            ? { ...j, progress: { done: e.done, total: e.total, message: e.message ?? null, measuring: j.progress?.measuring ?? null } }
            : null,
        )
      )
        keepEarly({ event: 'jobs:progress', data: e });
    },
    onSample: (e) => {
      const s = e.sample;
      const handled = update(e.jobId, (j) => {
        // A sample after a lost connection: the same server is back and the job is alive.
        if (j.status === 'unknown') j = { ...j, status: 'running', message: null };
        if (j.status !== 'running') return null;
        const next = appendBounded(j.samples, s, { now: 0, lastAt: 0, minIntervalMs: 0, max: SAMPLES_MAX, force: true });
        // The point being measured is the one its telemetry names, not the count of points finished.
        const measuring = s.point ?? j.progress?.measuring ?? null;
        const progress = {
          done: j.progress?.done ?? 0,
          total: j.progress?.total ?? j.grid.length,
          message: j.progress?.message ?? null,
          measuring,
        };
        return { ...j, samples: next.series, progress };
      });
      if (!handled) keepEarly({ event: 'jobs:sample', data: e });
    },
    onConnectionLost: () => {
      const j = get().job;
      if (j?.status !== 'running') return;
      set({
        job: {
          ...j,
          status: 'unknown',
          cancelling: false,
          message:
            'The connection to the server was lost while this job ran: it may have stopped with the server. What it measured is in Runs (an unfinished sweep shows as interrupted).',
        },
      });
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
          progress: e.status === 'ok' ? { done: total, total, message: null, measuring: null } : j.progress,
          message: e.status === 'ok' ? null : (e.message ?? e.status),
          code: e.status === 'failed' ? (e.code ?? 'FAILED') : null,
        };
      });
      if (!handled) keepEarly({ event: 'jobs:finished', data: e });
    },
  };
});

/**
 * The job the Profile screen shows: a running one always (it is what is happening), a finished
 * one only while the form still asks what it answered (same mode, same file or command).
 * Opening Profile for a new build never shows the last command's result.
 */
export function shownJob(s: Pick<ProfilesState, 'job' | 'form'>): ProfileJob | null {
  const j = s.job;
  if (!j) return null;
  if (j.status === 'running' || j.status === 'unknown') return j;
  if (j.mode !== s.form.mode) return null;
  if (j.mode === 'grid') return j.file === s.form.file.trim() ? j : null;
  return j.command === s.form.command.trim() ? j : null;
}

/** The start error for these params, or null once the form asks something else. */
export function profileStartErrorFor(
  s: Pick<ProfilesState, 'startError' | 'startErrorKey'>,
  params: Params<'profiles.start'> | null,
): ApiError | null {
  return params && s.startErrorKey === keyOf(params) ? s.startError : null;
}

/** "point 2 of 4 (1 done)": the point whose telemetry is plotted, numbered from 1. */
export function pointProgressText(job: Pick<ProfileJob, 'status' | 'progress' | 'grid'>): string {
  const total = job.progress?.total ?? job.grid.length;
  const done = job.progress?.done ?? 0;
  if (job.status !== 'running') return `${done} of ${total} points`;
  const m = job.progress?.measuring;
  // Readings that still name a finished point come from work after it (FFCV's stage ablation):
  // no point is being measured then, and the count says so rather than "measuring point 4 · 4 done".
  if (m !== null && m !== undefined && m < done) return `${done} of ${total} points done`;
  const current = m === null || m === undefined ? done + 1 : m + 1;
  return `measuring point ${Math.min(current, total)} of ${total} · ${done} done`;
}

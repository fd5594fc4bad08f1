import { create } from 'zustand';
import type { DatasetCheck, FinishedEvent, InspectResult, PreviewResult, ProgressEvent, SampleDetail } from '../../../core/api/contract.js';
import type { SampleWhere } from '../../../core/api/sample-detail.js';
import { ApiError, call, toApiError } from '../lib/api.js';
import { isRemoteUrl, remoteUrlProblem } from '../lib/remote-url.js';

export const PREVIEW_COUNT = 24;
export const THUMB_SIZE = 112;

interface DatasetsState {
  /** The path input. */
  path: string;
  /** The URL input (s3://, https://, http://): a dataset the server reads over the network. */
  url: string;
  /** Why the URL typed cannot be opened, found before asking the server (scheme, bucket, key); null: none. */
  urlProblem: string | null;
  /** The file shown (after a successful inspect). */
  openPath: string | null;
  inspecting: boolean;
  inspect: InspectResult | null;
  inspectError: ApiError | null;
  /** The path (or URL) inspectError answered: once the path input changes the error is no longer shown. */
  inspectErrorKey: string | null;
  /** First sample of the page shown: always a multiple of PREVIEW_COUNT. */
  start: number;
  /** The sample asked for (Go to sample, a page-map cell), highlighted on its page; null when paging. */
  focus: number | null;
  previewLoading: boolean;
  preview: PreviewResult | null;
  previewError: ApiError | null;
  /** Show only samples of this label (the class field's value); null: all. Pages then count among the matches. */
  labelFilter: number | null;
  setLabelFilter(label: number | null): Promise<void>;
  /** Show only samples whose int/float/string field is in a range or among values; null: no such filter. */
  where: SampleWhere | null;
  setWhere(where: SampleWhere | null): Promise<void>;
  /** The sample detail view: the index shown (null: closed), its data, loading and error. */
  detailIndex: number | null;
  detail: SampleDetail | null;
  detailLoading: boolean;
  detailError: ApiError | null;
  openDetail(index: number): Promise<void>;
  /** The next (+1) or previous (-1) sample: in file order, or among the filters' matches when a filter is on (paging as needed). */
  stepDetail(delta: 1 | -1): Promise<void>;
  closeDetail(): void;
  /** The Health panel: the kept check (undefined: not asked yet; null: none kept), a run in progress, an error. */
  check: DatasetCheck | null | undefined;
  checkRunning: boolean;
  checkError: ApiError | null;
  /** The running check job (checks.start): its id once the host answered, its progress, a cancel on its way. */
  checkJob: CheckJob | null;
  /** The last check run was cancelled (the user's choice: said plainly, not as a failure). */
  checkCancelled: boolean;
  /** Reads the kept check (run false), or runs the check as a job (run true). */
  loadCheck(run: boolean): Promise<void>;
  cancelCheck(): Promise<void>;
  onCheckProgress(e: ProgressEvent): void;
  onCheckFinished(e: FinishedEvent): void;
  setPath(p: string): void;
  setUrl(u: string): void;
  open(path?: string): Promise<void>;
  /** Opens the URL typed, once it passes remoteUrlProblem (else urlProblem says why, and nothing is sent). */
  openUrl(): Promise<void>;
  /** Shows the page holding sample `index` (pages are PREVIEW_COUNT apart from 0); `focus` highlights it. */
  goTo(index: number, focus?: boolean): Promise<void>;
  close(): void;
}

let inspectSeq = 0;
let previewSeq = 0;
let detailSeq = 0;
let checkSeq = 0;

export interface CheckJob {
  /** Null until checks.start answers (its events may come first: kept in `early`). */
  id: string | null;
  path: string;
  progress: { done: number; total: number | null; rate: number; etaMs: number | null } | null;
  cancelling: boolean;
}

/** Check events that arrived before checks.start answered with their job's id. */
let early: Array<ProgressEvent | FinishedEvent> = [];

export const useDatasetsStore = create<DatasetsState>()((set, get) => ({
  path: '',
  url: '',
  urlProblem: null,
  openPath: null,
  inspecting: false,
  inspect: null,
  inspectError: null,
  inspectErrorKey: null,
  start: 0,
  focus: null,
  previewLoading: false,
  preview: null,
  previewError: null,
  labelFilter: null,
  setLabelFilter: async (labelFilter) => {
    set({ labelFilter, preview: null });
    await get().goTo(0);
  },
  where: null,
  setWhere: async (where) => {
    set({ where, preview: null });
    await get().goTo(0);
  },
  detailIndex: null,
  detail: null,
  detailLoading: false,
  detailError: null,
  openDetail: async (index) => {
    const { openPath, inspect } = get();
    if (!openPath || !inspect || index < 0 || index >= inspect.numSamples) return;
    const my = ++detailSeq;
    set({ detailIndex: index, detailLoading: true, detailError: null });
    try {
      const detail = await call('datasets.sample', { path: openPath, index });
      if (my !== detailSeq) return;
      set({ detail, detailLoading: false });
    } catch (e) {
      if (my !== detailSeq) return;
      set({ detailError: toApiError(e), detailLoading: false });
    }
  },
  stepDetail: async (delta) => {
    const st = get();
    const at = detailPosition(st);
    if (!at || at.position + delta < 0 || at.position + delta >= at.count) return;
    if (!at.filtered) return st.openDetail(at.index + delta);
    const list = st.preview?.samples.map((x) => x.index) ?? [];
    const next = list[list.indexOf(at.index) + delta];
    if (next !== undefined) return st.openDetail(next);
    // Off the page shown: the neighbouring page of matches, then its first (or last) sample.
    await st.goTo(st.start + delta * PREVIEW_COUNT);
    const page = get().preview?.samples ?? [];
    const target = delta > 0 ? page[0] : page[page.length - 1];
    if (target) await get().openDetail(target.index);
  },
  closeDetail: () => {
    detailSeq++;
    set({ detailIndex: null, detail: null, detailLoading: false, detailError: null });
  },
  check: undefined,
  checkRunning: false,
  checkError: null,
  checkJob: null,
  checkCancelled: false,
  loadCheck: async (run) => {
    const { openPath } = get();
    if (!openPath) return;
    const my = ++checkSeq;
    set({ checkRunning: run, checkError: null, checkCancelled: false });
    try {
      if (!run) {
        const check = await call('datasets.check', { path: openPath });
        if (my === checkSeq) set({ check });
        return;
      }
      // A job: progress and the result come as events (onCheckProgress, onCheckFinished).
      early = [];
      set({ checkJob: { id: null, path: openPath, progress: null, cancelling: false } });
      const { jobId } = await call('checks.start', { path: openPath });
      const job = get().checkJob;
      if (my !== checkSeq || !job || job.path !== openPath) return;
      set({ checkJob: { ...job, id: jobId } });
      const kept = early.filter((e) => e.jobId === jobId);
      early = [];
      for (const e of kept) {
        if ('status' in e) get().onCheckFinished(e);
        else get().onCheckProgress(e);
      }
    } catch (e) {
      if (my !== checkSeq) return;
      set({ checkError: toApiError(e), checkRunning: false, checkJob: null });
    }
  },
  cancelCheck: async () => {
    const job = get().checkJob;
    if (!job?.id || job.cancelling) return;
    set({ checkJob: { ...job, cancelling: true } });
    try {
      const { cancelled } = await call('checks.cancel', { jobId: job.id });
      // No such job on the host any more (it ended, or the host restarted): no jobs:finished will come.
      if (!cancelled && get().checkJob?.id === job.id) set({ checkJob: null, checkRunning: false, checkCancelled: true });
    } catch (e) {
      if (get().checkJob?.id === job.id) set({ checkJob: { ...job, cancelling: false }, checkError: toApiError(e) });
    }
  },
  onCheckProgress: (e) => {
    const job = get().checkJob;
    if (e.kind !== 'check' || !job) return;
    if (job.id === null) {
      if (early.length < 500) early.push(e);
      return;
    }
    if (job.id !== e.jobId) return;
    set({ checkJob: { ...job, progress: { done: e.done, total: e.total, rate: e.rate, etaMs: e.etaMs } } });
  },
  onCheckFinished: (e) => {
    const job = get().checkJob;
    if (e.kind !== 'check' || !job) return;
    if (job.id === null) {
      early.push(e);
      return;
    }
    if (job.id !== e.jobId) return;
    if (e.status === 'ok') set({ checkJob: null, checkRunning: false, check: e.result ?? null });
    else if (e.status === 'cancelled') set({ checkJob: null, checkRunning: false, checkCancelled: true });
    else
      set({
        checkJob: null,
        checkRunning: false,
        checkError: new ApiError(e.code ?? 'FAILED', e.message ?? 'the check failed'),
      });
  },
  setPath: (path) => set({ path }),
  setUrl: (url) => set({ url, urlProblem: null }),
  openUrl: async () => {
    const url = get().url.trim();
    const urlProblem = remoteUrlProblem(url);
    if (urlProblem) {
      set({ urlProblem });
      return;
    }
    await get().open(url);
  },
  open: async (p) => {
    const path = (p ?? get().path).trim();
    if (!path) {
      set({ inspectError: new ApiError('BAD_REQUEST', 'Give the path of a .beton file.'), inspectErrorKey: '' });
      return;
    }
    const my = ++inspectSeq;
    previewSeq++;
    // A URL (typed, or from the link #/dataset?file=s3://…) belongs in the URL field.
    const remote = isRemoteUrl(path);
    set({
      ...(remote ? { url: path, urlProblem: null } : { path }),
      inspecting: true,
      inspectError: null,
      inspect: null,
      openPath: null,
      preview: null,
      previewError: null,
      start: 0,
      focus: null,
      labelFilter: null,
      where: null,
      detailIndex: null,
      detail: null,
      check: undefined,
      checkError: null,
      checkRunning: false,
      checkJob: null,
      checkCancelled: false,
    });
    detailSeq++;
    checkSeq++;
    try {
      const inspect = await call('datasets.inspect', { path });
      if (my !== inspectSeq) return;
      set({ inspect, openPath: inspect.path, inspecting: false });
      // The health check is local-only (it hashes every byte and keeps its result beside the file).
      if (!remote) void get().loadCheck(false);
      await get().goTo(0);
    } catch (e) {
      if (my !== inspectSeq) return;
      set({ inspectError: toApiError(e), inspectErrorKey: path, inspecting: false });
    }
  },
  goTo: async (index, focus = false) => {
    const { openPath, inspect, labelFilter, where, preview: shown } = get();
    if (!openPath || !inspect) return;
    // Filtered, positions count among the matches (known once a filtered page came back).
    const total =
      where !== null
        ? (shown?.where?.matches ?? inspect.numSamples)
        : labelFilter === null
          ? inspect.numSamples
          : (shown?.filter?.matches ?? inspect.labels?.counts.find((c) => c.label === labelFilter)?.count ?? inspect.numSamples);
    const i = Math.max(0, Math.min(index, Math.max(0, total - 1)));
    // The page holding it, not a page starting at it: "Go to sample 999" of 1000 must not show one sample.
    const s = Math.floor(i / PREVIEW_COUNT) * PREVIEW_COUNT;
    const my = ++previewSeq;
    set({ start: s, focus: focus ? i : null, previewLoading: true, previewError: null });
    if (inspect.numSamples === 0) {
      set({ previewLoading: false, preview: { path: openPath, start: 0, numSamples: 0, samples: [] } });
      return;
    }
    try {
      const preview = await call('datasets.preview', {
        path: openPath,
        start: s,
        count: PREVIEW_COUNT,
        thumb: THUMB_SIZE,
        ...(labelFilter !== null ? { label: labelFilter } : {}),
        ...(where !== null ? { where } : {}),
      });
      if (my !== previewSeq) return;
      set({ preview, previewLoading: false });
    } catch (e) {
      if (my !== previewSeq) return;
      set({ previewError: toApiError(e), previewLoading: false });
    }
  },
  close: () => {
    inspectSeq++;
    previewSeq++;
    set({
      openPath: null,
      inspect: null,
      preview: null,
      inspectError: null,
      previewError: null,
      inspecting: false,
      previewLoading: false,
      start: 0,
      focus: null,
      labelFilter: null,
      where: null,
      detailIndex: null,
      detail: null,
      check: undefined,
      checkRunning: false,
      checkJob: null,
      checkCancelled: false,
    });
  },
}));

/**
 * Where the open sample stands for ← / →: with a filter on and the sample on the page shown,
 * its position among the matches; otherwise its index in the file.
 */
export function detailPosition(
  d: Pick<DatasetsState, 'detailIndex' | 'inspect' | 'labelFilter' | 'where' | 'preview' | 'start'>,
): { index: number; position: number; count: number; filtered: boolean } | null {
  if (d.detailIndex === null || !d.inspect) return null;
  const pos = d.preview?.samples.findIndex((x) => x.index === d.detailIndex) ?? -1;
  if ((d.labelFilter !== null || d.where !== null) && pos >= 0)
    return { index: d.detailIndex, position: d.start + pos, count: shownTotal(d), filtered: true };
  return { index: d.detailIndex, position: d.detailIndex, count: d.inspect.numSamples, filtered: false };
}

/** Samples the pager counts: the file's, or the matches of the filters once a filtered page came back. */
export function shownTotal(d: Pick<DatasetsState, 'inspect' | 'labelFilter' | 'where' | 'preview'>): number {
  if (d.where !== null) return d.preview?.where?.matches ?? 0;
  if (d.labelFilter === null) return d.inspect?.numSamples ?? 0;
  return d.preview?.filter?.matches ?? d.inspect?.labels?.counts.find((c) => c.label === d.labelFilter)?.count ?? 0;
}

/**
 * What "Go to sample" does with the text typed: the sample index, or why it cannot go
 * there (not a whole number, negative, past the end), said in full rather than clamped or
 * ignored.
 */
export function parseSampleIndex(text: string, numSamples: number): { index: number } | { error: string } {
  const t = text.trim();
  const range = numSamples > 0 ? `0 to ${numSamples - 1}` : 'none: the file is empty';
  if (!/^[+-]?\d+$/.test(t)) return { error: `"${text}" is not a sample number; enter a whole number from ${range}.` };
  const i = Number(t);
  if (i < 0) return { error: `Sample numbers start at 0; enter a whole number from ${range}.` };
  if (i >= numSamples) return { error: `Sample ${i} does not exist: the file has ${numSamples} samples (${range}).` };
  return { index: i };
}

/** The open error for the path (or URL) as typed now, or null once it was edited. */
export function inspectErrorFor(d: Pick<DatasetsState, 'path' | 'url' | 'inspectError' | 'inspectErrorKey'>): ApiError | null {
  const key = d.inspectErrorKey;
  if (key === null) return null;
  return (isRemoteUrl(key) ? key === d.url.trim() : key === d.path.trim()) ? d.inspectError : null;
}

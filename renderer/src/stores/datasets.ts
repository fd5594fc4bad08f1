import { create } from 'zustand';
import type { InspectResult, PreviewResult } from '../../../core/api/contract.js';
import { ApiError, call, toApiError } from '../lib/api.js';

export const PREVIEW_COUNT = 24;
export const THUMB_SIZE = 112;

interface DatasetsState {
  /** The path input. */
  path: string;
  /** The file shown (after a successful inspect). */
  openPath: string | null;
  inspecting: boolean;
  inspect: InspectResult | null;
  inspectError: ApiError | null;
  /** The path inspectError answered: once the path input changes the error is no longer shown. */
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
  setPath(p: string): void;
  open(path?: string): Promise<void>;
  /** Shows the page holding sample `index` (pages are PREVIEW_COUNT apart from 0); `focus` highlights it. */
  goTo(index: number, focus?: boolean): Promise<void>;
  close(): void;
}

let inspectSeq = 0;
let previewSeq = 0;

export const useDatasetsStore = create<DatasetsState>()((set, get) => ({
  path: '',
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
  setPath: (path) => set({ path }),
  open: async (p) => {
    const path = (p ?? get().path).trim();
    if (!path) {
      set({ inspectError: new ApiError('BAD_REQUEST', 'Give the path of a .beton file.'), inspectErrorKey: '' });
      return;
    }
    const my = ++inspectSeq;
    previewSeq++;
    set({
      path,
      inspecting: true,
      inspectError: null,
      inspect: null,
      openPath: null,
      preview: null,
      previewError: null,
      start: 0,
      focus: null,
      labelFilter: null,
    });
    try {
      const inspect = await call('datasets.inspect', { path });
      if (my !== inspectSeq) return;
      set({ inspect, openPath: inspect.path, inspecting: false });
      await get().goTo(0);
    } catch (e) {
      if (my !== inspectSeq) return;
      set({ inspectError: toApiError(e), inspectErrorKey: path, inspecting: false });
    }
  },
  goTo: async (index, focus = false) => {
    const { openPath, inspect, labelFilter, preview: shown } = get();
    if (!openPath || !inspect) return;
    // Filtered, positions count among the matches (known once a filtered page came back).
    const total =
      labelFilter === null
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
    });
  },
}));

/** The open error for the path as typed now, or null once it was edited. */
export function inspectErrorFor(d: Pick<DatasetsState, 'path' | 'inspectError' | 'inspectErrorKey'>): ApiError | null {
  return d.inspectErrorKey === d.path.trim() ? d.inspectError : null;
}

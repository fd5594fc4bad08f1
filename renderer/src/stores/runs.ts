import { create } from 'zustand';
import type { RunSummary } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import type { ProfileRunView, RunComparison } from '../lib/types.js';

/** How many runs can be overlaid at once. */
export const MAX_SELECTED = 2;

/** Toggles `id`; selecting past `max` drops the earliest selected. */
export function toggleSelection(selected: readonly number[], id: number, max = MAX_SELECTED): number[] {
  if (selected.includes(id)) return selected.filter((x) => x !== id);
  const next = [...selected, id];
  return next.length > max ? next.slice(next.length - max) : next;
}

export interface RunDetail {
  loading: boolean;
  error: ApiError | null;
  run: ProfileRunView | null;
}

interface RunsState {
  list: RunSummary[];
  loaded: boolean;
  loading: boolean;
  error: ApiError | null;
  selected: number[];
  details: Record<number, RunDetail>;
  comparison: { a: number; b: number; data: RunComparison | null; error: ApiError | null } | null;
  /** The run shown in full (settings, evidence, timelines, points), or null. */
  open: number | null;
  /** The run whose deletion waits for confirmation. */
  confirmDelete: number | null;
  deleting: number | null;
  deleteError: ApiError | null;
  load(): Promise<void>;
  toggle(id: number): void;
  openRun(id: number | null): void;
  clearSelection(): void;
  askDelete(id: number | null): void;
  remove(id: number): Promise<void>;
}

let listSeq = 0;

export const useRunsStore = create<RunsState>()((set, get) => {
  const loadDetail = async (id: number): Promise<void> => {
    const cur = get().details[id];
    if (cur && (cur.loading || cur.run)) return;
    set((s) => ({ details: { ...s.details, [id]: { loading: true, error: null, run: null } } }));
    try {
      const run = await call('runs.get', { id });
      set((s) => ({ details: { ...s.details, [id]: { loading: false, error: null, run } } }));
    } catch (e) {
      set((s) => ({ details: { ...s.details, [id]: { loading: false, error: toApiError(e), run: null } } }));
    }
  };
  const loadComparison = async (): Promise<void> => {
    // The older run is A, the baseline: "B is 2× slower than A" then reads as "the newer run got slower".
    const [a, b] = [...get().selected].sort((x, y) => x - y);
    if (a === undefined || b === undefined) {
      set({ comparison: null });
      return;
    }
    set({ comparison: { a, b, data: null, error: null } });
    try {
      const data = await call('runs.compare', { a, b });
      const c = get().comparison;
      if (c && c.a === a && c.b === b) set({ comparison: { a, b, data, error: null } });
    } catch (e) {
      const c = get().comparison;
      if (c && c.a === a && c.b === b) set({ comparison: { a, b, data: null, error: toApiError(e) } });
    }
  };
  return {
    list: [],
    loaded: false,
    loading: false,
    error: null,
    selected: [],
    details: {},
    comparison: null,
    open: null,
    confirmDelete: null,
    deleting: null,
    deleteError: null,
    load: async () => {
      const my = ++listSeq;
      set({ loading: true, error: null });
      try {
        const list = await call('runs.list', { limit: 200 });
        if (my !== listSeq) return;
        const ids = new Set(list.map((r) => r.id));
        // A run that is still running may change: drop cached details of running runs.
        const details = Object.fromEntries(
          Object.entries(get().details).filter(
            ([id]) => ids.has(Number(id)) && list.find((r) => r.id === Number(id))?.status !== 'running',
          ),
        );
        const selected = get().selected.filter((id) => ids.has(id));
        const open = get().open !== null && ids.has(get().open!) ? get().open : null;
        set({ list, loaded: true, loading: false, details, selected, open });
        for (const id of selected) void loadDetail(id);
        if (open !== null) void loadDetail(open);
      } catch (e) {
        if (my !== listSeq) return;
        set({ error: toApiError(e), loading: false, loaded: true });
      }
    },
    toggle: (id) => {
      const selected = toggleSelection(get().selected, id);
      set({ selected });
      for (const s of selected) void loadDetail(s);
      void loadComparison();
    },
    openRun: (id) => {
      set({ open: id });
      if (id !== null) void loadDetail(id);
    },
    clearSelection: () => set({ selected: [], comparison: null }),
    askDelete: (id) => set({ confirmDelete: id, deleteError: null }),
    remove: async (id) => {
      set({ deleting: id, deleteError: null });
      try {
        await call('runs.delete', { id });
        set((s) => {
          const details = { ...s.details };
          delete details[id];
          return {
            deleting: null,
            confirmDelete: null,
            selected: s.selected.filter((x) => x !== id),
            list: s.list.filter((r) => r.id !== id),
            details,
            open: s.open === id ? null : s.open,
          };
        });
        if (get().comparison && !get().selected.includes(get().comparison!.a)) set({ comparison: null });
        if (get().comparison && !get().selected.includes(get().comparison!.b)) set({ comparison: null });
        await get().load();
      } catch (e) {
        set({ deleting: null, deleteError: toApiError(e) });
      }
    },
  };
});

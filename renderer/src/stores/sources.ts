import { create } from 'zustand';
import type { DetectedSource } from '../../../core/api/contract.js';
import { ApiError, call, toApiError } from '../lib/api.js';
import { changeFieldType, formFromDetected, needsCategories, type BuildForm, type ClipForm, type FieldForm } from '../lib/build-form.js';
import { keyOf } from '../lib/keyed.js';
import { useAdviceStore } from './advice.js';

interface SourcesState {
  /** What the path input holds. */
  path: string;
  /** Image lists: the column holding image paths (optional; detected otherwise). */
  imageColumn: string;
  detecting: boolean;
  error: ApiError | null;
  /** The path and image column `error` answered (sourceKey). */
  errorKey: string | null;
  detected: DetectedSource | null;
  form: BuildForm | null;
  setPath(path: string): void;
  setImageColumn(c: string): void;
  detect(path?: string): Promise<void>;
  updateForm(patch: Partial<Omit<BuildForm, 'fields'>>): void;
  updateField(index: number, patch: Partial<FieldForm>): void;
  updateClip(patch: Partial<ClipForm>): void;
  removeField(index: number): void;
  reset(): void;
}

let seq = 0;

/** What a detect answers for: the path and image column as typed. */
export function sourceKey(s: Pick<SourcesState, 'path' | 'imageColumn'>): string {
  return keyOf(s.path.trim(), s.imageColumn.trim());
}

/** The detect error for the path as it is now; editing the path (or column) is a new question. */
export function sourceErrorFor(s: Pick<SourcesState, 'path' | 'imageColumn' | 'error' | 'errorKey'>): ApiError | null {
  return s.errorKey === sourceKey(s) ? s.error : null;
}

export const useSourcesStore = create<SourcesState>()((set, get) => ({
  path: '',
  imageColumn: '',
  detecting: false,
  error: null,
  errorKey: null,
  detected: null,
  form: null,
  setPath: (path) => set({ path }),
  setImageColumn: (imageColumn) => set({ imageColumn }),
  detect: async (p) => {
    const path = (p ?? get().path).trim();
    if (!path) {
      set({
        error: new ApiError('BAD_REQUEST', 'Choose a folder or file first.'),
        errorKey: sourceKey({ path, imageColumn: get().imageColumn }),
      });
      return;
    }
    const my = ++seq;
    // Another source: the schema shown belonged to the old one, and goes with it.
    const other = get().detected?.source.path !== path;
    set({ path, detecting: true, error: null, errorKey: null, ...(other ? { detected: null, form: null } : {}) });
    // …and so does the estimate made for it (its sizes, times and quality thumbnails).
    if (other) useAdviceStore.getState().clear();
    try {
      const col = get().imageColumn.trim();
      const detected = await call('sources.detect', { path, ...(col ? { imageColumn: col } : {}) });
      if (my !== seq) return;
      set({ detected, form: formFromDetected(detected), detecting: false });
    } catch (e) {
      if (my !== seq) return;
      set({
        error: toApiError(e),
        errorKey: sourceKey({ path, imageColumn: get().imageColumn }),
        detecting: false,
        detected: null,
        form: null,
      });
    }
  },
  updateForm: (patch) => {
    const form = get().form;
    if (form) set({ form: { ...form, ...patch } });
  },
  updateField: (index, patch) => {
    const form = get().form;
    const old = form?.fields[index];
    if (!form || !old) return;
    let next: FieldForm =
      patch.type !== undefined && patch.type !== old.type
        ? { ...changeFieldType(old, patch.type), ...patch, labelMap: null }
        : { ...old, ...patch };
    // A string column becoming an int label needs its categories: read once per column, kept with the field.
    const wantMap = needsCategories(next) && (next.labelMap === null || next.labelMap.state === 'error') && patch.type !== undefined;
    if (wantMap) next = { ...next, labelMap: { state: 'loading' } };
    set({ form: { ...form, fields: form.fields.map((f, i) => (i === index ? next : f)) } });
    if (wantMap) void loadCategories(form, index, next.sourceColumn);
  },
  updateClip: (patch) => {
    const form = get().form;
    if (form?.clip) set({ form: { ...form, clip: { ...form.clip, ...patch } } });
  },
  removeField: (index) => {
    const form = get().form;
    if (form) set({ form: { ...form, fields: form.fields.filter((_, i) => i !== index) } });
  },
  reset: () => {
    seq++;
    set({ detected: null, form: null, error: null, errorKey: null, detecting: false });
  },
}));

/** Reads the column's distinct values into the field's label mapping, if the form still asks for them. */
async function loadCategories(form: BuildForm, index: number, column: string): Promise<void> {
  const src = form.source;
  const format = src.type === 'table' || src.type === 'image_list' ? src.format : undefined;
  let labelMap: FieldForm['labelMap'];
  try {
    const r = await call('sources.categories', { path: src.path, column, ...(format ? { format } : {}) });
    labelMap = { state: 'ready', categories: r.categories };
  } catch (e) {
    labelMap = { state: 'error', message: toApiError(e).message };
  }
  const cur = useSourcesStore.getState().form;
  const f = cur?.fields[index];
  // Only into the same source's same field, still an int label waiting for them.
  if (!cur || !f || cur.source.path !== src.path || f.sourceColumn !== column || !needsCategories(f) || f.labelMap?.state !== 'loading')
    return;
  useSourcesStore.setState({ form: { ...cur, fields: cur.fields.map((x, i) => (i === index ? { ...x, labelMap } : x)) } });
}

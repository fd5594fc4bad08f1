import { create } from 'zustand';
import type { DetectedSource } from '../../../core/api/contract.js';
import { ApiError, call, toApiError } from '../lib/api.js';
import { formFromDetected, type BuildForm, type FieldForm } from '../lib/build-form.js';

interface SourcesState {
  /** What the path input holds. */
  path: string;
  /** Image lists: the column holding image paths (optional; detected otherwise). */
  imageColumn: string;
  detecting: boolean;
  error: ApiError | null;
  detected: DetectedSource | null;
  form: BuildForm | null;
  setPath(path: string): void;
  setImageColumn(c: string): void;
  detect(path?: string): Promise<void>;
  updateForm(patch: Partial<Omit<BuildForm, 'fields'>>): void;
  updateField(index: number, patch: Partial<FieldForm>): void;
  removeField(index: number): void;
  reset(): void;
}

let seq = 0;

export const useSourcesStore = create<SourcesState>()((set, get) => ({
  path: '',
  imageColumn: '',
  detecting: false,
  error: null,
  detected: null,
  form: null,
  setPath: (path) => set({ path }),
  setImageColumn: (imageColumn) => set({ imageColumn }),
  detect: async (p) => {
    const path = (p ?? get().path).trim();
    if (!path) {
      set({ error: new ApiError('BAD_REQUEST', 'Choose a folder or file first.') });
      return;
    }
    const my = ++seq;
    set({ path, detecting: true, error: null });
    try {
      const col = get().imageColumn.trim();
      const detected = await call('sources.detect', { path, ...(col ? { imageColumn: col } : {}) });
      if (my !== seq) return;
      set({ detected, form: formFromDetected(detected), detecting: false });
    } catch (e) {
      if (my !== seq) return;
      set({ error: toApiError(e), detecting: false, detected: null, form: null });
    }
  },
  updateForm: (patch) => {
    const form = get().form;
    if (form) set({ form: { ...form, ...patch } });
  },
  updateField: (index, patch) => {
    const form = get().form;
    if (!form || !form.fields[index]) return;
    const fields = form.fields.map((f, i) => (i === index ? { ...f, ...patch } : f));
    set({ form: { ...form, fields } });
  },
  removeField: (index) => {
    const form = get().form;
    if (form) set({ form: { ...form, fields: form.fields.filter((_, i) => i !== index) } });
  },
  reset: () => {
    seq++;
    set({ detected: null, form: null, error: null, detecting: false });
  },
}));

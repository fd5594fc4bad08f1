import { create } from 'zustand';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { InspectResult } from '../../../core/api/contract.js';
import type { LoaderConfigInput } from '../../../core/api/loader-config.js';
import { ApiError, call, toApiError } from '../lib/api.js';
import { DEFAULT_EXPORT_FORM, type ExportForm } from '../lib/export-form.js';

interface ExportState {
  form: ExportForm;
  /** The chosen file's fields (datasets.inspect), for the pipelines. */
  fields: { path: string; fields: InspectResult['fields'] } | null;
  fieldsError: ApiError | null;
  generating: boolean;
  result: { text: string; language: 'python' | 'json' } | null;
  error: ApiError | null;
  setForm(patch: Partial<ExportForm>): void;
  loadFields(): Promise<InspectResult['fields'] | null>;
  generate(loader: LoaderConfigInput | null, build: BuildConfigInput | null): Promise<void>;
}

export const useExportStore = create<ExportState>()((set, get) => ({
  form: DEFAULT_EXPORT_FORM,
  fields: null,
  fieldsError: null,
  generating: false,
  result: null,
  error: null,
  setForm: (patch) => set((s) => ({ form: { ...s.form, ...patch }, ...(patch.file !== undefined && patch.file !== s.form.file ? { fieldsError: null } : {}) })),
  loadFields: async () => {
    const path = get().form.file.trim();
    if (!path) return null;
    const have = get().fields;
    if (have && have.path === path) return have.fields;
    try {
      const r = await call('datasets.inspect', { path });
      set({ fields: { path, fields: r.fields }, fieldsError: null });
      return r.fields;
    } catch (e) {
      set({ fields: null, fieldsError: toApiError(e) });
      return null;
    }
  },
  generate: async (loader, build) => {
    if (!loader && !build) {
      set({ error: new ApiError('BAD_REQUEST', 'Choose a dataset (loader) or include a build.') });
      return;
    }
    set({ generating: true, error: null });
    try {
      const result = await call('export.generate', { ...(loader ? { loader } : {}), ...(build ? { build } : {}), format: get().form.format });
      set({ result, generating: false });
    } catch (e) {
      set({ error: toApiError(e), generating: false, result: null });
    }
  },
}));

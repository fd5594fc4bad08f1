import { create } from 'zustand';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { InspectResult } from '../../../core/api/contract.js';
import type { LoaderConfigInput } from '../../../core/api/loader-config.js';
import { ApiError, call, toApiError } from '../lib/api.js';
import { fitBatchSize } from '../lib/batch-size.js';
import { DEFAULT_EXPORT_FORM, type ExportForm } from '../lib/export-form.js';
import { keyOf, valueFor, type Keyed } from '../lib/keyed.js';

export interface ExportResult {
  text: string;
  language: 'python' | 'json';
}

interface ExportState {
  form: ExportForm;
  /** The batch size was typed (or set by "Export the best loader"): the dataset's size no longer picks it. */
  batchChosen: boolean;
  /** The chosen file's fields (datasets.inspect), for the pipelines. */
  fields: { path: string; fields: InspectResult['fields']; numSamples: number } | null;
  fieldsError: Keyed<ApiError> | null;
  generating: boolean;
  /** The code, keyed by the loader, build and format it was generated from (exportKey). */
  result: Keyed<ExportResult> | null;
  error: Keyed<ApiError> | null;
  setForm(patch: Partial<ExportForm>): void;
  loadFields(): Promise<InspectResult['fields'] | null>;
  generate(loader: LoaderConfigInput | null, build: BuildConfigInput | null): Promise<void>;
}

/** What the generated code depends on: the shown result must have been generated from exactly this. */
export function exportKey(loader: LoaderConfigInput | null, build: BuildConfigInput | null, format: ExportForm['format']): string {
  return keyOf(loader, build, format);
}

/** The code for these inputs, or null while there is none (never the code of earlier inputs). */
export function resultFor(s: Pick<ExportState, 'result'>, key: string): ExportResult | null {
  return valueFor(s.result, key);
}

export function errorFor(s: Pick<ExportState, 'error'>, key: string): ApiError | null {
  return valueFor(s.error, key);
}

let generateSeq = 0;

export const useExportStore = create<ExportState>()((set, get) => ({
  form: DEFAULT_EXPORT_FORM,
  batchChosen: false,
  fields: null,
  fieldsError: null,
  generating: false,
  result: null,
  error: null,
  setForm: (patch) =>
    set((s) => {
      const form = { ...s.form, ...patch };
      const batchChosen = s.batchChosen || (patch.batchSize !== undefined && patch.batchSize !== s.form.batchSize);
      // A dataset already inspected sizes the default batch as soon as it is chosen again.
      const f = s.fields;
      if (!batchChosen && f && f.path === form.file.trim())
        form.batchSize = String(fitBatchSize(DEFAULT_EXPORT_FORM.batchSize, f.numSamples));
      return { form, batchChosen };
    }),
  loadFields: async () => {
    const path = get().form.file.trim();
    if (!path) return null;
    const have = get().fields;
    if (have && have.path === path) return have.fields;
    try {
      const r = await call('datasets.inspect', { path });
      const s = get();
      const fitted =
        s.batchChosen || s.form.file.trim() !== path
          ? {}
          : { form: { ...s.form, batchSize: String(fitBatchSize(DEFAULT_EXPORT_FORM.batchSize, r.numSamples)) } };
      set({ fields: { path, fields: r.fields, numSamples: r.numSamples }, fieldsError: null, ...fitted });
      return r.fields;
    } catch (e) {
      set({ fields: null, fieldsError: { key: path, value: toApiError(e) } });
      return null;
    }
  },
  generate: async (loader, build) => {
    const key = exportKey(loader, build, get().form.format);
    if (!loader && !build) {
      set({ error: { key, value: new ApiError('BAD_REQUEST', 'Choose a dataset (loader) or include a build.') } });
      return;
    }
    const my = ++generateSeq;
    set({ generating: true });
    try {
      const result = await call('export.generate', {
        ...(loader ? { loader } : {}),
        ...(build ? { build } : {}),
        format: get().form.format,
      });
      // A reply to inputs changed since is dropped: the newer request answers.
      if (my !== generateSeq) return;
      set({ result: { key, value: result }, error: null, generating: false });
    } catch (e) {
      if (my !== generateSeq) return;
      set({ error: { key, value: toApiError(e) }, generating: false });
    }
  },
}));

import { useEffect, useMemo, useState } from 'react';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import { validateExportForm } from '../lib/export-form.js';
import { InlineMarkdown } from '../components/InlineMarkdown.js';
import { FileErrorBanner } from '../components/RemoteRefused.js';
import { ExportResultCard } from './export/ExportResultCard.js';
import { LoaderSettingsForm } from './export/LoaderSettingsForm.js';
import { buildFor, useBuildsStore } from '../stores/builds.js';
import { errorFor, exportKey, resultFor, useExportStore } from '../stores/export.js';
import { usePick } from '../stores/use-pick.js';

/** The Export screen: a dataset's loader (and the build that wrote it) as FFCV Python or JSON configs. */
export function ExportScreen() {
  // What the screen shows (not batchChosen, the store's own bookkeeping).
  const x = usePick(useExportStore, 'form', 'fields', 'fieldsError', 'generating', 'result', 'error', 'setForm', 'loadFields', 'generate');
  const f = x.form;
  // The build that wrote the chosen file, if this session ran it: never another dataset's build.
  const build = useBuildsStore((s) => buildFor(s, f.file.trim()));
  const fieldsReady = x.fields !== null && x.fields.path === f.file.trim();
  const checked = useMemo(() => validateExportForm(f, x.fields && x.fields.path === f.file.trim() ? x.fields.fields : null), [f, x.fields]);
  const buildConfig = f.includeBuild && build?.config ? build.config : null;
  const key = exportKey(checked.loader, buildConfig, f.format);
  const result = resultFor(x, key);
  const error = errorFor(x, key);
  const fieldsError = x.fieldsError && x.fieldsError.key === f.file.trim() ? x.fieldsError.value : null;
  const [notice, setNotice] = useState<string | null>(null);

  const loadFields = x.loadFields;
  useEffect(() => {
    if (!f.file.trim()) return;
    const t = setTimeout(() => void loadFields(), 300);
    return () => clearTimeout(t);
  }, [f.file, loadFields]);

  // The code follows the settings: once the file's fields are known, changed settings (typed, or
  // set by "Export the best loader") regenerate it, and older code is never shown meanwhile.
  const generateFor = x.generate;
  const hasAnswer = result !== null || error !== null;
  useEffect(() => {
    if (!fieldsReady || !checked.loader || hasAnswer) return;
    const t = setTimeout(() => void generateFor(checked.loader, buildConfig), 250);
    return () => clearTimeout(t);
    // key holds loader, build and format: it changes exactly when they do.
  }, [key, fieldsReady, hasAnswer, generateFor]);

  const generate = async (): Promise<void> => {
    setNotice(null);
    const fields = await x.loadFields();
    const v = validateExportForm(useExportStore.getState().form, fields);
    await x.generate(v.loader, buildConfig);
  };

  const e = checked.errors;
  return (
    <div className="screen" data-testid="screen-export">
      <header className="screen-head">
        <h2>Export</h2>
        <p>
          <InlineMarkdown text="The same loader (and build) as Python FFCV code, or as JSON configs for `beton build --config` and the library." />
        </p>
      </header>
      <section className="card">
        <LoaderSettingsForm form={f} errors={e} hasBuild={!!build} onChange={x.setForm} />
        {fieldsError ? <FileErrorBanner file={f.file} error={fieldsError} title="Cannot read this file's fields" /> : null}
        {x.fields && x.fields.path === f.file.trim() ? (
          <p className="muted">Pipelines for {x.fields.fields.map((fl) => `${fl.name} (${fl.type})`).join(', ')}.</p>
        ) : null}
        <div className="actions">
          <div className="segmented" role="group" aria-label="Format">
            <button
              type="button"
              aria-pressed={f.format === 'python'}
              className={f.format === 'python' ? 'is-active' : ''}
              onClick={() => x.setForm({ format: 'python' })}
              data-testid="format-python"
            >
              Python
            </button>
            <button
              type="button"
              aria-pressed={f.format === 'json'}
              className={f.format === 'json' ? 'is-active' : ''}
              onClick={() => x.setForm({ format: 'json' })}
              data-testid="format-json"
            >
              JSON
            </button>
          </div>
          <button
            type="button"
            className="btn btn-primary btn-large"
            data-testid="export-generate"
            disabled={x.generating || (!checked.loader && !(f.includeBuild && build))}
            onClick={() => void generate()}
          >
            {x.generating ? 'Generating…' : 'Generate'}
          </button>
        </div>
      </section>

      {x.generating && !result ? <Loading label="Generating…" /> : null}
      {error ? <ErrorBanner error={error} title="Cannot generate the code" /> : null}
      {result ? (
        <ExportResultCard result={result} file={f.file} notice={notice} setNotice={setNotice} />
      ) : !x.generating && !error ? (
        <EmptyState title="Nothing generated yet">
          <p>
            <InlineMarkdown text="Choose a dataset and the loader settings, then Generate. The Python runs with FFCV as it is; the JSON is what `beton build --config` and `Loader.open` read." />
          </p>
        </EmptyState>
      ) : null}
    </div>
  );
}

import { useEffect, useMemo, useState } from 'react';
import { CodeBlock } from '../components/CodeBlock.js';
import { PathPicker } from '../components/FileBrowser.js';
import { Check, SelectField, TextField } from '../components/Form.js';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import { exportFileName, validateExportForm } from '../lib/export-form.js';
import type { DecoderKind } from '../lib/profile-form.js';
import type { OrderName } from '../lib/types.js';
import { lastOkBuild, useBuildsStore } from '../stores/builds.js';
import { useExportStore } from '../stores/export.js';

export function ExportScreen() {
  const x = useExportStore();
  const f = x.form;
  const build = useBuildsStore((s) => lastOkBuild(s));
  const checked = useMemo(() => validateExportForm(f, x.fields && x.fields.path === f.file.trim() ? x.fields.fields : null), [f, x.fields]);
  const [notice, setNotice] = useState<string | null>(null);

  const loadFields = x.loadFields;
  useEffect(() => {
    if (!f.file.trim()) return;
    const t = setTimeout(() => void loadFields(), 300);
    return () => clearTimeout(t);
  }, [f.file, loadFields]);

  const generate = async (): Promise<void> => {
    setNotice(null);
    const fields = await x.loadFields();
    const v = validateExportForm(useExportStore.getState().form, fields);
    const buildConfig = f.includeBuild && build?.config ? build.config : null;
    await x.generate(v.loader, buildConfig);
  };

  const copy = async (): Promise<void> => {
    if (!x.result) return;
    try {
      await navigator.clipboard.writeText(x.result.text);
      setNotice('Copied to the clipboard.');
    } catch {
      setNotice('The clipboard is not available here: select the code and copy it.');
    }
  };

  const save = async (): Promise<void> => {
    if (!x.result) return;
    const name = exportFileName(f.file || 'dataset', x.result.language);
    const dialogs = window.betonDialogs;
    if (typeof dialogs?.saveText === 'function') {
      const where = await dialogs.saveText(name, x.result.text);
      setNotice(where ? `Saved${typeof where === 'string' ? ` to ${where}` : ''}.` : 'Not saved.');
      return;
    }
    const blob = new Blob([x.result.text], { type: x.result.language === 'python' ? 'text/x-python' : 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setNotice(`Downloaded ${name}.`);
  };

  const e = checked.errors;
  return (
    <div className="screen" data-testid="screen-export">
      <header className="screen-head">
        <h2>Export</h2>
        <p>The same loader (and build) as Python FFCV code, or as JSON configs for `beton build --config` and the library.</p>
      </header>
      <section className="card">
        <div className="grid-form">
          <div className="span-2">
            <PathPicker label=".beton file" value={f.file} onChange={(file) => x.setForm({ file })} pick="file" accept={['beton']} testId="export-file" error={e.file} />
          </div>
          <TextField label="Batch size" value={f.batchSize} onChange={(batchSize) => x.setForm({ batchSize })} error={e.batchSize} testId="export-batch" inputMode="numeric" />
          <TextField label="Workers" value={f.numWorkers} onChange={(numWorkers) => x.setForm({ numWorkers })} error={e.numWorkers} placeholder="auto" inputMode="numeric" />
          <SelectField<OrderName>
            label="Order"
            value={f.order}
            onChange={(order) => x.setForm({ order })}
            options={[
              { value: 'random', label: 'random' },
              { value: 'quasi_random', label: 'quasi-random' },
              { value: 'sequential', label: 'sequential' },
            ]}
          />
          <TextField label="Seed" value={f.seed} onChange={(seed) => x.setForm({ seed })} error={e.seed} inputMode="numeric" />
          <SelectField<DecoderKind>
            label="Image decoder"
            value={f.decoder}
            onChange={(decoder) => x.setForm({ decoder })}
            options={[
              { value: 'rrc', label: 'Random resized crop' },
              { value: 'center', label: 'Center crop' },
              { value: 'simple', label: 'Simple (full image)' },
            ]}
          />
          <TextField label="Crop size (px)" value={f.size} onChange={(size) => x.setForm({ size })} error={e.size} disabled={f.decoder === 'simple'} inputMode="numeric" />
          <div className="checks span-2">
            <Check label="Random horizontal flip" checked={f.flip} onChange={(flip) => x.setForm({ flip })} />
            <Check label="Normalize (ImageNet mean/std)" checked={f.normalize} onChange={(normalize) => x.setForm({ normalize })} />
            <Check label="OS page cache" checked={f.osCache} onChange={(osCache) => x.setForm({ osCache })} />
            <Check label="Drop the last partial batch" checked={f.dropLast} onChange={(dropLast) => x.setForm({ dropLast })} />
            <Check label={build ? 'Include the last build (DatasetWriter code)' : 'Include a build (none this session)'} checked={f.includeBuild && !!build} disabled={!build} onChange={(includeBuild) => x.setForm({ includeBuild })} testId="export-include-build" />
          </div>
        </div>
        {x.fieldsError ? <ErrorBanner error={x.fieldsError} title="Cannot read this file's fields" /> : null}
        {x.fields && x.fields.path === f.file.trim() ? (
          <p className="muted">
            Pipelines for {x.fields.fields.map((fl) => `${fl.name} (${fl.type})`).join(', ')}.
          </p>
        ) : null}
        <div className="actions">
          <div className="segmented" role="group" aria-label="Format">
            <button type="button" aria-pressed={f.format === 'python'} className={f.format === 'python' ? 'is-active' : ''} onClick={() => x.setForm({ format: 'python' })} data-testid="format-python">
              Python
            </button>
            <button type="button" aria-pressed={f.format === 'json'} className={f.format === 'json' ? 'is-active' : ''} onClick={() => x.setForm({ format: 'json' })} data-testid="format-json">
              JSON
            </button>
          </div>
          <button type="button" className="btn btn-primary btn-large" data-testid="export-generate" disabled={x.generating || (!checked.loader && !(f.includeBuild && build))} onClick={() => void generate()}>
            {x.generating ? 'Generating…' : 'Generate'}
          </button>
        </div>
      </section>

      {x.generating ? <Loading label="Generating…" /> : null}
      {x.error ? <ErrorBanner error={x.error} title="Cannot generate the code" /> : null}
      {x.result ? (
        <section className="card">
          <header className="card-head">
            <h3>{x.result.language === 'python' ? 'Python (FFCV)' : 'JSON'}</h3>
            <div className="card-tools">
              <button type="button" className="btn btn-small" data-testid="copy-button" onClick={() => void copy()}>
                Copy
              </button>
              <button type="button" className="btn btn-small" data-testid="save-button" onClick={() => void save()}>
                Save…
              </button>
            </div>
          </header>
          {notice ? (
            <div className="notice" role="status" data-testid="export-notice">
              {notice}
            </div>
          ) : null}
          <CodeBlock text={x.result.text} language={x.result.language} />
        </section>
      ) : !x.generating && !x.error ? (
        <EmptyState title="Nothing generated yet">
          <p>Choose a dataset and the loader settings, then Generate. The Python runs with FFCV as it is; the JSON is what `beton build --config` and `Loader.open` read.</p>
        </EmptyState>
      ) : null}
    </div>
  );
}

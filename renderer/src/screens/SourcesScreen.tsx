import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { FieldMessage, TextField } from '../components/Form.js';
import { BuildAdvicePanel } from '../components/BuildAdvicePanel.js';
import { PathPicker } from '../components/FileBrowser.js';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import { fieldTypesFor, validateBuildForm } from '../lib/build-form.js';
import { formatNumber } from '../lib/format.js';
import { startErrorFor, useBuildsStore } from '../stores/builds.js';
import { useEnvStore } from '../stores/env.js';
import { sourceErrorFor, useSourcesStore } from '../stores/sources.js';
import { useUiStore } from '../stores/ui.js';
import { ClipCard } from './sources/ClipCard.js';
import { FieldRow } from './sources/FieldRow.js';
import { OutputCard } from './sources/OutputCard.js';

const SOURCE_LABEL: Record<string, string> = {
  image_folder: 'Image folder',
  image_list: 'Image list',
  table: 'Table',
  webdataset: 'WebDataset shards',
  video_folder: 'Video folder',
  video_list: 'Video list',
};
export function SourcesScreen() {
  const s = useSourcesStore();
  const cores = useEnvStore((e) => e.info?.cores ?? null);
  // Only what this screen shows: a build's progress events must not re-render the form.
  const builds = useBuildsStore(
    useShallow((b) => ({ start: b.start, starting: b.starting, startError: b.startError, startErrorKey: b.startErrorKey })),
  );
  const setScreen = useUiStore((u) => u.setScreen);
  const checked = useMemo(() => (s.form ? validateBuildForm(s.form) : null), [s.form]);
  const errors = checked?.errors ?? {};
  const warnings = checked?.warnings ?? {};
  const errorCount = Object.keys(errors).length;
  const sourceError = sourceErrorFor(s);
  const types = s.form ? fieldTypesFor(s.form.source.type) : [];

  const startBuild = async (overwrite = false): Promise<void> => {
    if (!checked?.config) return;
    const id = await builds.start(checked.config, overwrite);
    if (id) setScreen('build');
  };
  // An existing output is never replaced silently: the host refuses, and the user decides here.
  const startError = startErrorFor(builds, checked?.config ?? null);
  const outputExists = startError?.code === 'OUTPUT_EXISTS';

  return (
    <div className="screen" data-testid="screen-sources">
      <header className="screen-head">
        <h2>Sources</h2>
        <p>
          Pick a folder of images (one sub-folder per class) or a table (CSV, TSV, Parquet, JSON lines, .npy/.npz), check the detected
          schema, and build a .beton.
        </p>
      </header>

      <section className="card">
        <div className="row-wrap">
          <div className="grow">
            <PathPicker
              label="Source folder or file"
              value={s.path}
              onChange={s.setPath}
              onPicked={(p) => void s.detect(p)}
              onEnter={() => void s.detect()}
              pick="any"
              accept={['table']}
              testId="source-path"
              placeholder="/data/train or /data/labels.csv"
            />
          </div>
          <div className="narrow">
            <TextField
              label="Image column (lists)"
              value={s.imageColumn}
              onChange={s.setImageColumn}
              placeholder="auto"
              hint="Only for tables of image paths."
            />
          </div>
          <div className="align-end">
            <button
              type="button"
              className="btn btn-primary"
              data-testid="detect-button"
              onClick={() => void s.detect()}
              disabled={s.detecting}
            >
              {s.detecting ? 'Detecting…' : 'Detect schema'}
            </button>
          </div>
        </div>
      </section>

      {s.detecting ? <Loading label="Reading the source and detecting its schema…" /> : null}
      {sourceError ? <ErrorBanner error={sourceError} title="Cannot read this source" onRetry={() => void s.detect()} /> : null}

      {!s.form && !s.detecting && !sourceError ? (
        <EmptyState title="No source chosen yet">
          <p>
            Type a path or use Browse… to choose a folder or a file. Folders are read as <em>ImageFolder</em> (labels from sub-folder names,
            as torchvision); tables become one field per column.
          </p>
        </EmptyState>
      ) : null}

      {s.form ? (
        <>
          <section className="card" data-testid="schema-card">
            <header className="card-head">
              <h3>Schema</h3>
              <span className="card-sub">
                <span className="badge">{SOURCE_LABEL[s.form.source.type] ?? s.form.source.type}</span>{' '}
                <span data-testid="source-length">
                  {s.form.length === null ? 'length unknown' : `${formatNumber(s.form.length)} samples`}
                </span>
              </span>
            </header>
            <FieldMessage id="source-warning" warning={warnings.source} />
            <div className="table-scroll">
              <table className="table schema-table" data-testid="schema-table">
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Type</th>
                    <th scope="col">Write mode</th>
                    <th scope="col">Max resolution</th>
                    <th scope="col">JPEG quality</th>
                    <th scope="col">Compress p.</th>
                    <th scope="col">Smart threshold</th>
                    <th scope="col">Pass-through</th>
                    <th scope="col">
                      <span className="sr-only">Remove</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {s.form.fields.map((f, i) => (
                    <FieldRow
                      key={i}
                      index={i}
                      field={f}
                      types={types}
                      errors={errors}
                      warnings={warnings}
                      onChange={(patch) => s.updateField(i, patch)}
                      onRemove={s.form!.fields.length > 1 ? () => s.removeField(i) : undefined}
                    />
                  ))}
                </tbody>
              </table>
            </div>
            <FieldMessage id="fields-error" error={errors.fields} />
          </section>

          {s.form.clip ? <ClipCard clip={s.form.clip} errors={errors} onChange={s.updateClip} /> : null}

          <OutputCard form={s.form} errors={errors} cores={cores} onChange={s.updateForm} />

          <BuildAdvicePanel config={checked?.config ?? null} onPageSize={(pageSizeMiB) => s.updateForm({ pageSizeMiB })} />

          <div className="actions">
            {outputExists ? (
              <div className="banner banner-warn" role="alert" data-testid="overwrite-confirm">
                <div className="banner-text">
                  <strong>{checked?.config?.output ?? 'The output'} already exists.</strong> Replace it with this build? The old file stays
                  until the new one is complete.
                </div>
                <button
                  type="button"
                  className="btn btn-danger"
                  data-testid="overwrite-yes"
                  disabled={builds.starting}
                  onClick={() => void startBuild(true)}
                >
                  Replace it
                </button>
              </div>
            ) : startError ? (
              <ErrorBanner error={startError} title="The build did not start" />
            ) : null}
            <span className="muted" data-testid="form-status">
              {errorCount ? `${errorCount} ${errorCount === 1 ? 'problem' : 'problems'} to fix before building` : 'Ready to build'}
            </span>
            <button
              type="button"
              className="btn btn-primary btn-large"
              data-testid="build-button"
              disabled={!checked?.config || builds.starting}
              onClick={() => void startBuild(false)}
            >
              {builds.starting ? 'Starting…' : 'Build dataset'}
            </button>
          </div>
        </>
      ) : null}
    </div>
  );
}

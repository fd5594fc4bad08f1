import { CLIP_WRITE_MODES as CONTRACT_CLIP_WRITE_MODES } from '../../../core/api/constants.js';
import { useMemo } from 'react';
import { Check, FieldMessage, SelectField, TextField } from '../components/Form.js';
import { BuildAdvicePanel } from '../components/BuildAdvicePanel.js';
import { PathPicker } from '../components/FileBrowser.js';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import {
  DTYPES,
  fieldTypesFor,
  needsCategories,
  validateBuildForm,
  WRITE_MODES,
  type FieldForm,
  type FieldType,
  type WriteMode,
} from '../lib/build-form.js';
import { formatNumber } from '../lib/format.js';
import { startErrorFor, useBuildsStore } from '../stores/builds.js';
import { useEnvStore } from '../stores/env.js';
import { sourceErrorFor, useSourcesStore } from '../stores/sources.js';
import { useUiStore } from '../stores/ui.js';

const SOURCE_LABEL: Record<string, string> = {
  image_folder: 'Image folder',
  image_list: 'Image list',
  table: 'Table',
  video_folder: 'Video folder',
  video_list: 'Video list',
};
const CLIP_WRITE_MODES: readonly WriteMode[] = CONTRACT_CLIP_WRITE_MODES;
const TYPE_LABEL: Record<FieldType, string> = {
  rgb_image: 'RGB image',
  int: 'int',
  float: 'float',
  bytes: 'bytes',
  // A string column becomes a JSON field (FFCV's JSONField holds the text); the label says both.
  json: 'text (JSON)',
  ndarray: 'ndarray',
  torch_tensor: 'torch tensor',
  video_clip: 'video clip',
};

export function SourcesScreen() {
  const s = useSourcesStore();
  const cores = useEnvStore((e) => e.info?.cores ?? null);
  const builds = useBuildsStore();
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

          {s.form.clip ? (
            <section className="card" data-testid="clip-card">
              <header className="card-head">
                <h3>Clips</h3>
                <span className="card-sub">How each video is cut into samples (decoded with ffmpeg).</span>
              </header>
              <div className="grid-form">
                <TextField
                  label="Clip length (frames)"
                  value={s.form.clip.clipLength}
                  onChange={(clipLength) => s.updateClip({ clipLength })}
                  error={errors['clip.clipLength']}
                  testId="clip-length"
                  inputMode="numeric"
                  hint="Frames per sample (T)."
                />
                <TextField
                  label="Stride (frames)"
                  value={s.form.clip.stride}
                  onChange={(stride) => s.updateClip({ stride })}
                  error={errors['clip.stride']}
                  testId="clip-stride"
                  inputMode="numeric"
                  placeholder={`${s.form.clip.clipLength || 'clip length'} (back to back)`}
                  hint="Frames between clip starts; less than the length overlaps clips."
                />
                <TextField
                  label="Frame rate (fps)"
                  value={s.form.clip.fps}
                  onChange={(fps) => s.updateClip({ fps })}
                  error={errors['clip.fps']}
                  testId="clip-fps"
                  inputMode="decimal"
                  placeholder="each video's own"
                  hint="Resample every video to this rate first."
                />
              </div>
            </section>
          ) : null}

          <section className="card">
            <header className="card-head">
              <h3>Output</h3>
            </header>
            <div className="grid-form">
              <TextField
                className="span-2"
                label="Output file"
                value={s.form.output}
                onChange={(output) => s.updateForm({ output })}
                error={errors.output}
                testId="output-input"
                spellCheck={false}
              />
              <TextField
                label="Page size (MiB)"
                value={s.form.pageSizeMiB}
                onChange={(pageSizeMiB) => s.updateForm({ pageSizeMiB })}
                error={errors.pageSize}
                testId="pagesize-input"
                inputMode="decimal"
                hint="A power of two; FFCV's default is 8."
              />
              <TextField
                label="Workers"
                value={s.form.workers}
                onChange={(workers) => s.updateForm({ workers })}
                error={errors.workers}
                testId="workers-input"
                inputMode="numeric"
                placeholder={cores ? `auto (${cores})` : 'auto'}
                hint="Encoder threads; the output is the same whatever the count."
              />
              <SelectField
                label="Bad samples"
                value={s.form.onError}
                onChange={(onError) => s.updateForm({ onError })}
                options={[
                  { value: 'fail', label: 'Stop the build' },
                  { value: 'skip', label: 'Skip and list them' },
                ]}
                testId="onerror-select"
              />
            </div>
          </section>

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

function FieldRow({
  index,
  field: f,
  types,
  errors,
  warnings,
  onChange,
  onRemove,
}: {
  index: number;
  field: FieldForm;
  types: FieldType[];
  errors: Record<string, string>;
  warnings: Record<string, string>;
  onChange(p: Partial<FieldForm>): void;
  onRemove: (() => void) | undefined;
}) {
  const k = (key: string): string => `fields.${index}.${key}`;
  const cell = (
    key: keyof FieldForm,
    label: string,
    props: { inputMode?: 'numeric' | 'decimal'; placeholder?: string; disabled?: boolean; title?: string } = {},
  ) => (
    <td>
      <input
        aria-label={`${f.name || `field ${index + 1}`} ${label}`}
        className="input-small"
        value={String(f[key] ?? '')}
        onChange={(e) => onChange({ [key]: e.target.value } as Partial<FieldForm>)}
        aria-invalid={errors[k(key)] ? true : undefined}
        data-testid={`field-${index}-${key}`}
        {...props}
      />
      <FieldMessage id={`f${index}-${key}`} error={errors[k(key)]} warning={warnings[k(key)]} />
    </td>
  );
  const isImage = f.type === 'rgb_image';
  const rawOnly = f.writeMode === 'raw' ? { disabled: true, title: 'raw mode stores pixels: no JPEG is written' } : {};
  const isClip = f.type === 'video_clip';
  const isArray = f.type === 'ndarray' || f.type === 'torch_tensor';
  const labels = needsCategories(f) ? f.labelMap : null;
  return (
    <tr data-testid={`field-row-${f.name}`}>
      <td>
        <input
          aria-label={`Field ${index + 1} name`}
          className="input-small"
          value={f.name}
          onChange={(e) => onChange({ name: e.target.value })}
          aria-invalid={errors[k('name')] ? true : undefined}
        />
        <FieldMessage id={`f${index}-name`} error={errors[k('name')]} />
        {f.columns ? <div className="field-hint">from {f.columns.join(', ')}</div> : null}
      </td>
      <td>
        <select
          aria-label={`${f.name} type`}
          value={f.type}
          onChange={(e) => onChange({ type: e.target.value as FieldType })}
          data-testid={`field-${index}-type`}
        >
          {types.map((t) => (
            <option key={t} value={t}>
              {TYPE_LABEL[t]}
            </option>
          ))}
        </select>
      </td>
      {isImage ? (
        <>
          <td>
            <select
              aria-label={`${f.name} write mode`}
              value={f.writeMode}
              onChange={(e) => onChange({ writeMode: e.target.value as WriteMode })}
              data-testid={`field-${index}-writeMode`}
            >
              {WRITE_MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </td>
          {cell('maxResolution', 'max resolution', { inputMode: 'numeric', placeholder: 'none' })}
          {/* Raw mode writes no JPEG: its quality and the chance of one mean nothing there. */}
          {cell('jpegQuality', 'JPEG quality', { inputMode: 'numeric', ...rawOnly })}
          {cell('compressProbability', 'compress probability', { inputMode: 'decimal', ...rawOnly })}
          {cell('smartThreshold', 'smart threshold', { inputMode: 'numeric', placeholder: 'default' })}
          <td>
            <Check
              label={<span className="sr-only">{f.name}: keep source JPEGs (pass-through)</span>}
              checked={f.passThrough}
              onChange={(passThrough) => onChange({ passThrough })}
              testId={`field-${index}-passThrough`}
            />
            <FieldMessage id={`f${index}-pt`} warning={warnings[k('passThrough')]} />
          </td>
        </>
      ) : isClip ? (
        <>
          <td>
            <select
              aria-label={`${f.name} write mode`}
              value={f.writeMode}
              onChange={(e) => onChange({ writeMode: e.target.value as WriteMode })}
              data-testid={`field-${index}-writeMode`}
            >
              {CLIP_WRITE_MODES.map((m) => (
                <option key={m} value={m}>
                  {m === 'jpg' ? 'jpg (per frame)' : 'raw'}
                </option>
              ))}
            </select>
          </td>
          {cell('maxResolution', 'max resolution', { inputMode: 'numeric', placeholder: 'none' })}
          {cell('jpegQuality', 'JPEG quality', { inputMode: 'numeric', ...rawOnly })}
          <td colSpan={3} className="muted">
            Frames per clip: the clip length, under Clips.
            <FieldMessage id={`f${index}-type`} error={errors[k('type')]} />
          </td>
        </>
      ) : labels !== null || needsCategories(f) ? (
        <td colSpan={6} data-testid={`field-${index}-labels`} data-state={labels?.state ?? 'none'}>
          <LabelMapping labels={labels} />
          <FieldMessage id={`f${index}-labels`} error={errors[k('labels')]} />
        </td>
      ) : isArray ? (
        <td colSpan={6}>
          <div className="inline-fields">
            <select aria-label={`${f.name} dtype`} value={f.dtype} onChange={(e) => onChange({ dtype: e.target.value })}>
              {DTYPES.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
            <input
              aria-label={`${f.name} shape`}
              className="input-small"
              value={f.shape}
              onChange={(e) => onChange({ shape: e.target.value })}
              aria-invalid={errors[k('shape')] ? true : undefined}
              placeholder="shape, e.g. 28, 28"
            />
          </div>
          <FieldMessage id={`f${index}-shape`} error={errors[k('shape')] ?? errors[k('dtype')]} />
        </td>
      ) : (
        <td colSpan={6} className="muted">
          No options for {TYPE_LABEL[f.type]} fields.
        </td>
      )}
      <td>
        {onRemove ? (
          <button type="button" className="btn btn-small btn-ghost" onClick={onRemove} aria-label={`Remove field ${f.name}`}>
            ✕
          </button>
        ) : null}
      </td>
    </tr>
  );
}

/** category → int: each value and the integer it is stored as (the mapping saved with the build). */
function LabelMapping({ labels }: { labels: FieldForm['labelMap'] }) {
  if (!labels || labels.state === 'loading') return <span className="muted">Reading the column's values…</span>;
  if (labels.state === 'error') return null;
  const shown = labels.categories.slice(0, 24);
  return (
    <div className="label-map">
      <span className="muted">{formatNumber(labels.categories.length)} categories → int, in sorted order (saved in the build config):</span>
      <ul className="label-map-list">
        {shown.map((c, i) => (
          <li key={c}>
            <code>{i}</code> {c}
          </li>
        ))}
        {labels.categories.length > shown.length ? (
          <li className="muted">…and {formatNumber(labels.categories.length - shown.length)} more</li>
        ) : null}
      </ul>
    </div>
  );
}

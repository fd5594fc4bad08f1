import { useState } from 'react';
import type { InspectResult, PreviewResult, PreviewValue } from '../../../core/api/contract.js';
import { ClassHistogram, classLabel } from '../components/ClassHistogram.js';
import { PathPicker } from '../components/FileBrowser.js';
import { SelectField, Stat } from '../components/Form.js';
import { FieldFilter } from '../components/FieldFilter.js';
import { HealthPanel } from '../components/HealthPanel.js';
import { SampleDetailView } from '../components/SampleDetailView.js';
import { SampleTable } from '../components/SampleTable.js';
import { EmptyState, ErrorBanner, Loading, Skeleton } from '../components/States.js';
import { formatBytes, formatNumber, shortenPath } from '../lib/format.js';
import { inspectErrorFor, parseSampleIndex, PREVIEW_COUNT, shownTotal, useDatasetsStore } from '../stores/datasets.js';

export function DatasetScreen() {
  const d = useDatasetsStore();
  return (
    <div className="screen" data-testid="screen-dataset">
      <header className="screen-head">
        <h2>Dataset</h2>
        <p>Open any .beton file (written here or by FFCV): its header, fields, where samples live, and decoded samples.</p>
      </header>
      <section className="card">
        <div className="row-wrap">
          <div className="grow">
            <PathPicker
              label=".beton file"
              value={d.path}
              onChange={d.setPath}
              onPicked={(p) => void d.open(p)}
              onEnter={() => void d.open()}
              pick="file"
              accept={['beton']}
              testId="dataset-path"
              placeholder="/data/train.beton"
            />
          </div>
          <div className="align-end">
            <button
              type="button"
              className="btn btn-primary"
              data-testid="dataset-open"
              onClick={() => void d.open()}
              disabled={d.inspecting}
            >
              {d.inspecting ? 'Opening…' : 'Open'}
            </button>
          </div>
        </div>
      </section>

      {d.inspecting ? <Loading label="Reading the header and allocation table…" /> : null}
      {inspectErrorFor(d) ? <ErrorBanner error={inspectErrorFor(d)!} title="Cannot open this file" testId="dataset-error" /> : null}
      {!d.inspect && !d.inspecting && !inspectErrorFor(d) ? (
        <EmptyState title="No dataset open">
          <p>
            Type the path of a .beton file or browse to one. Only the metadata is read to show the layout; samples are decoded a page of{' '}
            {PREVIEW_COUNT} at a time.
          </p>
        </EmptyState>
      ) : null}
      {d.inspect ? <Inspect info={d.inspect} /> : null}
      {d.inspect ? <Classes info={d.inspect} /> : null}
      {d.inspect ? <HealthPanel /> : null}
      {d.inspect ? <Samples info={d.inspect} /> : null}
      <SampleDetailView />
    </div>
  );
}

function Inspect({ info }: { info: InspectResult }) {
  const goTo = useDatasetsStore((s) => s.goTo);
  const start = useDatasetsStore((s) => s.start);
  const filtered = useDatasetsStore((s) => s.labelFilter !== null);
  const setLabelFilter = useDatasetsStore((s) => s.setLabelFilter);
  const totalHeap = info.fields.reduce((a, f) => a + f.heapBytes, 0);
  const end = start + PREVIEW_COUNT - 1;
  const maxPages = 2048;
  return (
    <>
      <section className="card" data-testid="dataset-header">
        <header className="card-head">
          <h3>Header</h3>
          <span className="card-sub">
            <code title={info.path}>{shortenPath(info.path, 70)}</code>
          </span>
        </header>
        <div className="stats">
          <Stat label="Samples" value={formatNumber(info.numSamples)} testId="dataset-samples" />
          <Stat label="Format version" value={info.version} />
          <Stat label="Page size" value={formatBytes(info.pageSize)} />
          <Stat label="Pages" value={formatNumber(info.numPages)} />
          <Stat label="Record size" value={`${info.recordSize} B`} />
          <Stat label="File size" value={formatBytes(info.fileSize)} />
        </div>
      </section>

      <section className="card">
        <header className="card-head">
          <h3>Fields</h3>
        </header>
        <div className="table-scroll">
          <table className="table" data-testid="fields-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">FFCV class</th>
                <th scope="col">Arguments</th>
                <th scope="col">Bytes</th>
                <th scope="col">Image modes</th>
              </tr>
            </thead>
            <tbody>
              {info.fields.map((f) => (
                <tr key={f.name}>
                  <th scope="row">{f.name}</th>
                  <td>
                    {f.type} <span className="muted">({f.typeId})</span>
                  </td>
                  <td>
                    <code>{f.ffcvClass}</code>
                  </td>
                  <td className="args">
                    {Object.entries(f.arguments).map(([k, v]) => (
                      <span key={k} className="arg">
                        {k}=<code>{JSON.stringify(v)}</code>
                      </span>
                    ))}
                  </td>
                  <td className="num">
                    {formatBytes(f.heapBytes)}
                    <div
                      className="hbar"
                      style={{ width: `${totalHeap && f.heapBytes ? Math.max(1, (f.heapBytes / totalHeap) * 100) : 0}%` }}
                      aria-hidden="true"
                    />
                  </td>
                  <td>{f.imageModes ? `${formatNumber(f.imageModes.raw)} raw · ${formatNumber(f.imageModes.jpg)} JPEG` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section className="card" aria-label="Page map">
        <header className="card-head">
          <h3>Page map</h3>
          <span className="card-sub">Each cell is a page; darker = fuller. Pick one to see its samples.</span>
        </header>
        {info.pageMap.length === 0 ? (
          <p className="muted">No data pages (every field is stored in the sample records).</p>
        ) : (
          <div className="page-map" data-testid="page-map" data-count={info.pageMap.length}>
            {info.pageMap.slice(0, maxPages).map(([page, lo, hi, used]) => {
              const fill = info.pageSize ? used / info.pageSize : 0;
              const current = !filtered && lo <= end && hi >= start;
              return (
                <button
                  key={page}
                  type="button"
                  className={`page-cell ${current ? 'is-current' : ''}`}
                  style={{ ['--fill' as string]: String(Math.min(1, Math.max(0.08, fill))) }}
                  title={`Page ${page}: samples ${lo}–${hi}, ${formatBytes(used)} of ${formatBytes(info.pageSize)} used`}
                  aria-label={`Page ${page}, samples ${lo} to ${hi}, ${Math.round(fill * 100)}% used`}
                  onClick={() => void (filtered ? setLabelFilter(null) : Promise.resolve()).then(() => goTo(lo, true))}
                  data-testid="page-cell"
                />
              );
            })}
            {info.pageMap.length > maxPages ? (
              <span className="muted">…{formatNumber(info.pageMap.length - maxPages)} more pages</span>
            ) : null}
          </div>
        )}
        <details className="regions">
          <summary>File regions</summary>
          <table className="table compact">
            <tbody>
              {info.regions.map((r) => (
                <tr key={r.name}>
                  <th scope="row">{r.name}</th>
                  <td className="num">@{formatNumber(r.offset)}</td>
                  <td className="num">{formatBytes(r.size)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </section>
    </>
  );
}

/** Class names (sidecar manifest), the histogram and the label filter. */
function Classes({ info }: { info: InspectResult }) {
  const d = useDatasetsStore();
  const m = info.manifest;
  const labels = info.labels ?? null;
  return (
    <section className="card" aria-label="Classes" data-testid="classes-card">
      <header className="card-head">
        <h3>Classes</h3>
        <span className="card-sub" data-testid="manifest-status" data-status={m?.status ?? 'missing'}>
          {m?.status === 'ok' && m.classNames ? (
            <>
              names from <code title={m.path}>{shortenPath(m.path, 60)}</code>
            </>
          ) : m?.status === 'ok' ? (
            'the manifest has no class names; labels are shown as numbers'
          ) : (
            'no manifest beside the file; labels are shown as numbers'
          )}
        </span>
      </header>
      {m && m.note ? (
        <p className="field-msg field-warning" role="status" data-testid="manifest-note">
          {m.note}
        </p>
      ) : null}
      {!labels ? (
        <p className="muted">No class field: the file has no int field named label.</p>
      ) : labels.truncated ? (
        <p className="muted">
          Field <code>{labels.field}</code> has more than 1000 distinct values: an id rather than a class, so no histogram.
        </p>
      ) : (
        <>
          <div className="row-wrap">
            <div className="narrow">
              <SelectField
                label="Show class"
                testId="label-filter"
                value={d.labelFilter === null ? '' : String(d.labelFilter)}
                onChange={(v) => void d.setLabelFilter(v === '' ? null : Number(v))}
                options={[
                  { value: '', label: `All ${formatNumber(info.numSamples)} samples` },
                  ...labels.counts.map((c) => ({
                    value: String(c.label),
                    label: `${c.name !== null ? `${c.name} (${c.label})` : `label ${c.label}`} · ${formatNumber(c.count)}`,
                  })),
                ]}
              />
            </div>
            <div className="align-end">
              <p className="muted">
                {formatNumber(labels.distinct)} classes in field <code>{labels.field}</code>; pick a bar to show only its samples.
              </p>
            </div>
          </div>
          <ClassHistogram labels={labels} selected={d.labelFilter} onSelect={(l) => void d.setLabelFilter(l)} />
        </>
      )}
    </section>
  );
}

/** Whether a dataset is shown as images (a thumbnail grid) or as a table of values. */
const hasMedia = (info: InspectResult): boolean => info.fields.some((f) => f.type === 'rgb_image' || f.type === 'video_clip');

function Samples({ info }: { info: InspectResult }) {
  const d = useDatasetsStore();
  const filter = d.labelFilter;
  const counts = d.inspect?.labels?.counts ?? [];
  const n = shownTotal(d);
  const filterName = filter === null ? null : classLabel(counts.find((c) => c.label === filter) ?? { label: filter, name: null });
  const [jump, setJump] = useState('');
  const [jumpError, setJumpError] = useState<string | null>(null);
  const [jumpNote, setJumpNote] = useState<string | null>(null);
  const last = Math.min(n, d.start + PREVIEW_COUNT) - 1;
  const table = !hasMedia(info);
  const go = async () => {
    const r = parseSampleIndex(jump, info.numSamples);
    if ('error' in r) {
      setJumpError(r.error);
      setJumpNote(null);
      return;
    }
    setJumpError(null);
    // A sample number is a file position: filters go (the page would count among the matches), and the page says so.
    const cleared = [
      filterName !== null ? `the class filter (${filterName})` : null,
      d.where ? `the ${d.where.field} filter` : null,
    ].filter((x): x is string => x !== null);
    setJumpNote(cleared.length ? `Showing all samples: ${cleared.join(' and ')} cleared to go to sample ${r.index}.` : null);
    if (d.where) useDatasetsStore.setState({ where: null, preview: null });
    if (filter !== null) useDatasetsStore.setState({ labelFilter: null, preview: null });
    await d.goTo(r.index, true);
  };
  return (
    <section className="card" aria-label="Samples">
      <header className="card-head">
        <h3>Samples</h3>
        <span className="card-sub" data-testid="preview-range">
          {n
            ? table
              ? `${formatNumber(n)} rows`
              : `${formatNumber(d.start)}–${formatNumber(last)} of ${formatNumber(n)}`
            : filter === null && d.where === null
              ? 'empty dataset'
              : 'no samples'}
          {filterName !== null ? ` in ${filterName}` : ''}
        </span>
      </header>
      <FieldFilter info={info} />
      <div className="pager">
        {!table ? (
          <>
            <button
              type="button"
              className="btn btn-small"
              data-testid="page-prev"
              disabled={d.start === 0 || d.previewLoading}
              onClick={() => void d.goTo(d.start - PREVIEW_COUNT)}
            >
              ← Previous
            </button>
            <button
              type="button"
              className="btn btn-small"
              data-testid="page-next"
              disabled={d.start + PREVIEW_COUNT >= n || d.previewLoading}
              onClick={() => void d.goTo(d.start + PREVIEW_COUNT)}
            >
              Next →
            </button>
          </>
        ) : null}
        <form
          className="jump"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void go();
          }}
        >
          <label>
            Go to sample{' '}
            <input
              className="input-small"
              inputMode="numeric"
              value={jump}
              onChange={(e) => {
                setJump(e.target.value);
                setJumpError(null);
              }}
              aria-label="Sample index"
              aria-invalid={jumpError ? true : undefined}
              aria-describedby={jumpError ? 'goto-error' : undefined}
              data-testid="goto-input"
            />
          </label>
          <button type="submit" className="btn btn-small" data-testid="goto-button">
            Go
          </button>
        </form>
      </div>
      {jumpError ? (
        <p className="field-msg field-error" role="alert" id="goto-error" data-testid="goto-error">
          {jumpError}
        </p>
      ) : null}
      {jumpNote ? (
        <p className="field-msg field-warning" role="status" data-testid="goto-note">
          {jumpNote}
        </p>
      ) : null}
      {d.previewError ? (
        <ErrorBanner error={d.previewError} title="Cannot decode these samples" onRetry={() => void d.goTo(d.start)} />
      ) : null}
      {table && d.openPath ? (
        <SampleTable
          path={d.openPath}
          total={n}
          columns={info.fields.map((f) => f.name)}
          label={filter}
          where={d.where}
          focus={d.focus}
          onOpen={(i) => void d.openDetail(i)}
        />
      ) : null}
      {!table && d.previewLoading && !d.preview ? <Skeleton rows={4} height={64} /> : null}
      {!table && d.preview ? (
        <Thumbs preview={d.preview} loading={d.previewLoading} focus={d.focus} open={(i) => void d.openDetail(i)} />
      ) : null}
    </section>
  );
}

function Thumbs({
  preview,
  loading,
  focus,
  open,
}: {
  preview: PreviewResult;
  loading: boolean;
  focus: number | null;
  open(i: number): void;
}) {
  if (!preview.samples.length) return <EmptyState title="No samples here" />;
  return (
    <div className={`thumb-grid ${loading ? 'is-loading' : ''}`} data-testid="thumb-grid" aria-busy={loading}>
      {preview.samples.map((s) => {
        const entries = Object.entries(s.fields);
        const image = entries.find(([, v]) => v.kind === 'image' || v.kind === 'frames');
        const rest = entries.filter(([k]) => k !== image?.[0]);
        return (
          <figure
            key={s.index}
            className={`thumb ${image?.[1].kind === 'frames' ? 'thumb-clip' : ''} ${s.index === focus ? 'is-focus' : ''}`}
            data-testid="thumb"
            data-focus={s.index === focus ? 'true' : undefined}
            aria-current={s.index === focus ? 'true' : undefined}
          >
            <button
              type="button"
              className="thumb-open"
              onClick={() => open(s.index)}
              aria-label={`Open sample ${s.index}`}
              data-testid="thumb-open"
            >
              {image ? <Media name={image[0]} value={image[1]} index={s.index} /> : <div className="thumb-noimg">#{s.index}</div>}
            </button>
            <figcaption>
              <span className="thumb-index">#{s.index}</span>
              {s.className ? (
                <span className="thumb-class" data-testid="thumb-class">
                  {s.className}
                </span>
              ) : null}
              {image && image[1].kind === 'image' ? (
                <span
                  className="thumb-field"
                  data-testid="thumb-stored"
                  title={`${image[0]}: ${image[1].width}×${image[1].height}, stored ${image[1].mode === 'jpg' ? 'as JPEG' : 'raw'} in ${s.storedBytes?.[image[0]] ?? '?'} bytes`}
                >
                  {image[1].width}×{image[1].height}{' '}
                  <span className={`badge mode-${image[1].mode}`} data-testid="thumb-mode">
                    {image[1].mode}
                  </span>{' '}
                  {s.storedBytes ? formatBytes(s.storedBytes[image[0]] ?? 0) : null}
                </span>
              ) : null}
              {rest.map(([k, v]) => (
                <span key={k} className="thumb-field" title={v.kind === 'text' ? v.text : k}>
                  <span className="muted">{k}</span> {v.kind === 'text' ? v.text : v.kind}
                </span>
              ))}
            </figcaption>
          </figure>
        );
      })}
    </div>
  );
}

function Media({ name, value, index }: { name: string; value: PreviewValue; index: number }) {
  if (value.kind === 'image') {
    return (
      <img
        src={`data:${value.mime};base64,${value.base64}`}
        alt={`${name} of sample ${index}, ${value.width}×${value.height} ${value.mode}`}
        title={`${value.width}×${value.height}, stored ${value.mode}`}
      />
    );
  }
  if (value.kind === 'frames' && value.base64[0]) {
    // A clip as a filmstrip: evenly spaced frames side by side.
    return (
      <div
        className="filmstrip"
        data-testid="filmstrip"
        title={`${value.base64.length} of the clip's frames, ${value.width}×${value.height}`}
      >
        {value.base64.map((b, k) => (
          <img
            key={k}
            src={`data:${value.mime};base64,${b}`}
            alt={`${name} of sample ${index}, frame ${k + 1} of ${value.base64.length} shown`}
          />
        ))}
      </div>
    );
  }
  return null;
}

import { useEffect, useRef, useState } from 'react';
import type { SampleDetail } from '../../../core/api/contract.js';
import { formatBytes, formatNumber } from '../lib/format.js';
import { detailPosition, useDatasetsStore } from '../stores/datasets.js';
import { ErrorBanner, Loading } from './States.js';
import { usePick } from '../stores/use-pick.js';

/**
 * One sample in full, over the screen: the image at full resolution (fitted, or 1:1 pixels),
 * every field's value with its stored size, data page and file offset, and the duplicate
 * groups a kept check puts it in. ← / → step through the file, Esc closes.
 */
export function SampleDetailView() {
  const d = usePick(
    useDatasetsStore,
    'detailIndex',
    'inspect',
    'labelFilter',
    'where',
    'preview',
    'start',
    'detail',
    'detailError',
    'closeDetail',
    'stepDetail',
    'openDetail',
  );
  const { closeDetail, stepDetail } = d;
  const index = d.detailIndex;
  const numSamples = d.inspect?.numSamples ?? 0;
  const at = detailPosition(d);
  const [actual, setActual] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (index === null) return;
    dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') closeDetail();
      else if (e.key === 'ArrowRight') void stepDetail(1);
      else if (e.key === 'ArrowLeft') void stepDetail(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [index, closeDetail, stepDetail]);
  if (index === null) return null;
  const s = d.detail && d.detail.index === index ? d.detail : null;
  return (
    <div className="overlay" onClick={(e) => e.target === e.currentTarget && d.closeDetail()}>
      <div
        className="detail"
        role="dialog"
        aria-modal="true"
        aria-label={`Sample ${index}`}
        tabIndex={-1}
        ref={dialog}
        data-testid="sample-detail"
        data-index={index}
        data-loaded={s ? 'true' : 'false'}
      >
        <header className="detail-head">
          <h3>
            Sample #{formatNumber(index)} <span className="muted">of {formatNumber(numSamples)}</span>
            {at?.filtered ? (
              <span className="muted" data-testid="detail-match">
                {' '}
                · match {formatNumber(at.position + 1)} of {formatNumber(at.count)}
              </span>
            ) : null}
            {s?.className ? <span className="badge">{s.className}</span> : null}
          </h3>
          <div className="row-wrap">
            <button
              type="button"
              className="btn btn-small"
              disabled={!at || at.position === 0}
              onClick={() => void d.stepDetail(-1)}
              data-testid="detail-prev"
            >
              ← Previous
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={!at || at.position + 1 >= at.count}
              onClick={() => void d.stepDetail(1)}
              data-testid="detail-next"
            >
              Next →
            </button>
            <label className="check-inline">
              <input type="checkbox" checked={actual} onChange={(e) => setActual(e.target.checked)} data-testid="detail-zoom" /> 1:1 pixels
            </label>
            <button type="button" className="btn btn-small" onClick={() => d.closeDetail()} data-testid="detail-close" aria-label="Close">
              Close (Esc)
            </button>
          </div>
        </header>
        {d.detailError ? <ErrorBanner error={d.detailError} title="Cannot read this sample" /> : null}
        {!s && !d.detailError ? <Loading label="Decoding the sample…" /> : null}
        {s ? <Body s={s} actual={actual} open={(i) => void d.openDetail(i)} /> : null}
      </div>
    </div>
  );
}

function Body({ s, actual, open }: { s: SampleDetail; actual: boolean; open(i: number): void }) {
  const images = s.fields.filter((f) => f.value.kind === 'image');
  const group = (label: string, ids: number[] | null, testId: string) =>
    ids ? (
      <p data-testid={testId}>
        {label}:{' '}
        {ids.map((id) => (
          <button key={id} type="button" className="link-button" disabled={id === s.index} onClick={() => open(id)}>
            #{id}
          </button>
        ))}
      </p>
    ) : null;
  return (
    <div className="detail-body">
      {images.map((f) =>
        f.value.kind === 'image' ? (
          <div key={f.name} className={`detail-image ${actual ? 'is-actual' : ''}`} data-testid="detail-image-box">
            <img
              src={`data:${f.value.mime};base64,${f.value.base64}`}
              alt={`${f.name} of sample ${s.index}, ${f.value.width}×${f.value.height}`}
              width={f.value.width}
              height={f.value.height}
              data-testid="detail-image"
            />
          </div>
        ) : null,
      )}
      {s.flags.length ? (
        <ul className="detail-flags" data-testid="detail-flags">
          {s.flags.map((f) => (
            <li key={f} className="field-msg field-warning">
              {f}
            </li>
          ))}
        </ul>
      ) : null}
      {group('Exact duplicates', s.duplicates, 'detail-duplicates')}
      {group('Near-duplicates', s.nearDuplicates, 'detail-near')}
      <table className="table compact" data-testid="detail-fields">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">Stored</th>
            <th scope="col">Page</th>
            <th scope="col">Offset</th>
          </tr>
        </thead>
        <tbody>
          {s.fields.map((f) => (
            <tr key={f.name}>
              <th scope="row">{f.name}</th>
              <td>{f.type}</td>
              <td className="detail-value">
                {f.value.kind === 'text'
                  ? f.value.text
                  : f.value.kind === 'image'
                    ? `${f.value.width}×${f.value.height} ${f.value.mode}`
                    : `${f.value.base64.length} frames`}
              </td>
              <td className="num">{f.storedBytes ? formatBytes(f.storedBytes) : 'in record'}</td>
              <td className="num">{f.page ?? '—'}</td>
              <td className="num">{f.offset !== null ? formatNumber(f.offset) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import type { PreviewValue, SampleDetail } from '../../../core/api/contract.js';
import { formatBytes, formatNumber } from '../lib/format.js';
import { detailPosition, useDatasetsStore } from '../stores/datasets.js';
import { DuplicateGroup } from './DuplicateGroup.js';
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
  // What had the focus when the dialog opened (the thumbnail): it gets it back on close.
  const opener = useRef<HTMLElement | null>(null);
  const open = index !== null;
  const lastIndex = useRef<number | null>(null);
  if (index !== null) lastIndex.current = index;
  useEffect(() => {
    if (!open) return;
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    return () => {
      const i = lastIndex.current;
      // The thumbnail of the sample last shown, when it is on the page; else the one that opened it.
      const thumb = i === null ? null : document.querySelector<HTMLElement>(`[data-testid=thumb-open][data-index="${i}"]`);
      (thumb ?? opener.current)?.focus();
    };
  }, [open]);
  useEffect(() => {
    if (index === null) return;
    if (!dialog.current?.contains(document.activeElement)) dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Tab') {
        trapTab(dialog.current, e);
        return;
      }
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

/** Keeps Tab inside the dialog: from the last focusable to the first, and back with Shift. */
function trapTab(root: HTMLElement | null, e: KeyboardEvent): void {
  if (!root) return;
  const items = [...root.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href], [tabindex]:not([tabindex="-1"])')].filter(
    (el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null,
  );
  if (!items.length) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === root || !root.contains(at))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || !root.contains(at))) {
    e.preventDefault();
    first.focus();
  }
}

function Body({ s, actual, open }: { s: SampleDetail; actual: boolean; open(i: number): void }) {
  const images = s.fields.filter((f) => f.value.kind === 'image');
  const clips = s.fields.filter((f) => f.value.kind === 'frames');
  const path = useDatasetsStore((d) => d.openPath);
  const group = (label: string, ids: number[] | null, testId: string) =>
    ids && path ? (
      <div data-testid={testId}>
        <h4>{label}</h4>
        <DuplicateGroup path={path} ids={ids} current={s.index} open={open} testId={`${testId}-group`} />
      </div>
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
      {clips.map((f) => (f.value.kind === 'frames' ? <ClipFrames key={f.name} name={f.name} index={s.index} clip={f.value} /> : null))}
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
                    : `${f.value.count ?? f.value.base64.length} frames`}
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

/** A clip in the dialog: its frames (up to 8, evenly spaced) large enough to see, and how many the file stores. */
function ClipFrames({ name, index, clip }: { name: string; index: number; clip: Extract<PreviewValue, { kind: 'frames' }> }) {
  return (
    <div className="detail-clip" data-testid="detail-clip">
      <p className="muted" data-testid="detail-clip-count">
        {clip.count !== undefined
          ? `${formatNumber(clip.count)} frames stored, ${clip.width}×${clip.height}; ${clip.base64.length} of them shown, evenly spaced`
          : `${clip.base64.length} frames shown, ${clip.width}×${clip.height}`}
      </p>
      <div className="detail-frames">
        {clip.base64.map((b, k) => (
          <img
            key={k}
            src={`data:${clip.mime};base64,${b}`}
            alt={`${name} of sample ${index}, frame ${k + 1} of ${clip.base64.length} shown`}
            data-testid="detail-frame"
          />
        ))}
      </div>
    </div>
  );
}

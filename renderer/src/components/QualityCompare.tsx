import { useEffect, useRef, useState } from 'react';
import type { BuildAdvice } from '../../../core/api/contract.js';
import { formatBytes } from '../lib/format.js';

type Item = NonNullable<BuildAdvice['quality']>['items'][number];
type Variant = Item['variants'][number];

const src = (v: Variant): string => (v.preview ? `data:${v.preview.mime};base64,${v.preview.base64}` : '');

/**
 * One sampled image, two ways, at 1:1 pixels (or 2× / 4×, each pixel a block): the lossless
 * version on the left of the slider, the chosen JPEG quality on its right, so q50 and q90 can
 * be told apart (the 96 px tiles could not show it). Esc or Close returns to the estimate.
 */
export function QualityCompare({ item, variant, onClose }: { item: Item; variant: number; onClose(): void }) {
  const after = item.variants[variant]!;
  const before = item.variants.find((v) => v.mode === 'raw') ?? item.variants[0]!;
  const [split, setSplit] = useState(50);
  const [zoom, setZoom] = useState(1);
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.current?.querySelector<HTMLElement>('input[type=range]')?.focus();
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') {
        e.preventDefault();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, [onClose]);
  const p = after.preview ?? before.preview;
  if (!p) return null;
  const w = p.width * zoom;
  const h = p.height * zoom;
  return (
    <div className="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="detail quality-compare"
        role="dialog"
        aria-modal="true"
        aria-label={`Sample ${item.index}: ${before.label} against ${after.label}`}
        ref={dialog}
        data-testid="quality-compare"
      >
        <header className="detail-head">
          <h3>
            Sample #{item.index}: <span data-testid="compare-before">{before.label}</span> ◀ ▶{' '}
            <span data-testid="compare-after">{after.label}</span>
          </h3>
          <div className="row-wrap">
            <label className="check-inline">
              Zoom{' '}
              <select value={zoom} onChange={(e) => setZoom(Number(e.target.value))} data-testid="compare-zoom">
                <option value={1}>1:1</option>
                <option value={2}>2×</option>
                <option value={4}>4×</option>
              </select>
            </label>
            <button type="button" className="btn btn-small" onClick={onClose} data-testid="compare-close">
              Close (Esc)
            </button>
          </div>
        </header>
        <div className="detail-body">
          <p className="muted">
            {p.crop ? `The middle ${p.width}×${p.height} of the image` : `The whole image, ${p.width}×${p.height}`}, pixel for pixel. Left
            of the line: {before.label} ({formatBytes(before.bytes)}); right: {after.label} ({formatBytes(after.bytes)}).
          </p>
          <div className="compare-stage" style={{ width: w, height: h }} data-testid="compare-stage">
            <img src={src(after)} alt={`sample ${item.index} as ${after.label}`} width={w} height={h} data-testid="compare-after-img" />
            <img
              src={src(before)}
              alt={`sample ${item.index} as ${before.label}`}
              width={w}
              height={h}
              className="compare-top"
              style={{ clipPath: `inset(0 ${100 - split}% 0 0)` }}
            />
            <div className="compare-line" style={{ left: `${split}%` }} aria-hidden="true" />
          </div>
          <input
            type="range"
            min={0}
            max={100}
            value={split}
            onChange={(e) => setSplit(Number(e.target.value))}
            aria-label={`Slide between ${before.label} and ${after.label}`}
            data-testid="compare-slider"
            style={{ width: Math.max(w, 200) }}
          />
        </div>
      </div>
    </div>
  );
}

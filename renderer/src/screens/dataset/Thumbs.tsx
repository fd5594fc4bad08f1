import { useEffect, useRef } from 'react';
import type { PreviewResult } from '../../../../core/api/contract.js';
import { EmptyState } from '../../components/States.js';
import { formatBytes } from '../../lib/format.js';
import { Media } from './Media.js';

/** A page of samples as thumbnails: the image (or clip), its class, how it is stored, and its other fields. */
export function Thumbs({
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
  // "Go to sample 250" (or a page-map cell) brings that sample into view, not only onto the page.
  const grid = useRef<HTMLDivElement>(null);
  const shown = preview.samples.some((s) => s.index === focus);
  useEffect(() => {
    if (focus === null || !shown) return;
    grid.current?.querySelector(`[data-index="${focus}"]`)?.scrollIntoView({ block: 'center' });
  }, [focus, shown]);
  if (!preview.samples.length) return <EmptyState title="No samples here" />;
  return (
    <div className={`thumb-grid ${loading ? 'is-loading' : ''}`} data-testid="thumb-grid" aria-busy={loading} ref={grid}>
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
              data-index={s.index}
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

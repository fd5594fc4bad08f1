import { useState } from 'react';
import { parseSampleIndex, PREVIEW_COUNT, useDatasetsStore } from '../../stores/datasets.js';
import { usePick } from '../../stores/use-pick.js';

/**
 * Moving among the samples: previous and next page (thumbnails only: a table scrolls), and
 * "Go to sample", which says why it cannot go somewhere rather than going elsewhere.
 */
export function Pager({
  numSamples,
  total,
  paged,
  filterName,
}: {
  /** Samples in the file: what "Go to sample" numbers. */
  numSamples: number;
  /** Samples shown (among the filters' matches). */
  total: number;
  /** Previous / next buttons (thumbnail pages). */
  paged: boolean;
  /** The class filter's name, or null when there is none. */
  filterName: string | null;
}) {
  const d = usePick(useDatasetsStore, 'start', 'previewLoading', 'where', 'labelFilter', 'goTo');
  const [jump, setJump] = useState('');
  const [jumpError, setJumpError] = useState<string | null>(null);
  const [jumpNote, setJumpNote] = useState<string | null>(null);
  const go = async () => {
    const r = parseSampleIndex(jump, numSamples);
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
    if (d.labelFilter !== null) useDatasetsStore.setState({ labelFilter: null, preview: null });
    await d.goTo(r.index, true);
  };
  return (
    <>
      <div className="pager">
        {paged ? (
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
              disabled={d.start + PREVIEW_COUNT >= total || d.previewLoading}
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
    </>
  );
}

import type { RunSummary } from '../../../../core/api/contract.js';
import { formatCompact, formatDateTime, rateUnit } from '../../lib/format.js';
import { useRunsStore } from '../../stores/runs.js';

/**
 * One run of the list: overlay it, open its details, or delete it (after a confirmation in place).
 * `unitInCell`: the listed runs' rates differ in unit (images, clips), so this one says its own.
 */
export function RunRow({ run, unitInCell }: { run: RunSummary; unitInCell: boolean }) {
  const sel = useRunsStore((r) => r.selected.includes(run.id));
  const isOpen = useRunsStore((r) => r.open === run.id);
  const confirming = useRunsStore((r) => r.confirmDelete === run.id);
  const deleting = useRunsStore((r) => r.deleting === run.id);
  const { toggle, openRun, askDelete, remove } = useRunsStore.getState();
  return (
    <tr data-testid="run-row" data-id={run.id} className={sel ? 'is-selected' : ''}>
      <td>
        <input
          type="checkbox"
          checked={sel}
          onChange={() => toggle(run.id)}
          aria-label={`Overlay run ${run.id}`}
          data-testid={`run-select-${run.id}`}
        />
      </td>
      <th scope="row">{run.id}</th>
      <td>{run.kind}</td>
      <td>{formatDateTime(run.startedAt)}</td>
      <td>
        <span className={`status status-${run.status}`} title={run.failure ?? undefined}>
          {run.status}
        </span>
        {run.failure ? <FailureLine failure={run.failure} /> : null}
      </td>
      {/* The file's name whole (the folder is its title): "photos.b…" named nothing. */}
      <td className="cell-path" title={run.datasetPath ?? ''} data-testid="run-dataset">
        {run.datasetPath ? baseName(run.datasetPath) : '—'}
      </td>
      <td className="col-host">{run.hostname}</td>
      {/* A command run has no grid points: its rate is the command's own (exec verdict). */}
      <td className="num">{run.kind === 'exec' ? '—' : run.points}</td>
      <td className="num">
        {formatCompact(run.bestImagesPerSec)}
        {/* Under the number: the table must still fit at 1024 px. */}
        {unitInCell && run.bestImagesPerSec !== null ? (
          <div className="muted" data-testid="run-rate-unit">
            {rateUnit(run.datasetSchema)}
          </div>
        ) : null}
      </td>
      <td>{run.verdictKind ? <span className="badge">{run.verdictKind}</span> : '—'}</td>
      <td>
        <button
          type="button"
          className="btn btn-small"
          data-testid={`run-open-${run.id}`}
          aria-pressed={isOpen}
          onClick={() => openRun(isOpen ? null : run.id)}
        >
          {isOpen ? 'Hide' : 'Details'}
        </button>
      </td>
      <td>
        {confirming ? (
          <span className="confirm" role="group" aria-label={`Delete run ${run.id}?`}>
            <button
              type="button"
              className="btn btn-small btn-danger"
              data-testid="confirm-delete"
              onClick={() => void remove(run.id)}
              disabled={deleting}
              autoFocus
            >
              {deleting ? 'Deleting…' : 'Delete'}
            </button>
            <button type="button" className="btn btn-small" onClick={() => askDelete(null)}>
              Keep
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            data-testid={`run-delete-${run.id}`}
            onClick={() => askDelete(run.id)}
            aria-label={`Delete run ${run.id}`}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}

const baseName = (p: string): string =>
  p
    .replace(/[/\\]+$/, '')
    .split(/[/\\]/)
    .pop() || p;

/**
 * A failed run in one line: the failure's last line (what went wrong), the whole text (a
 * traceback) behind a disclosure, so it never spills into the next columns.
 */
function FailureLine({ failure }: { failure: string }) {
  const lines = failure.trim().split('\n');
  const last = lines.filter((l) => l.trim()).pop() ?? failure;
  return (
    <div className="run-failure" data-testid="run-failure">
      <span className="run-failure-line" title={last}>
        {last}
      </span>
      {lines.length > 1 ? (
        <details className="run-failure-more">
          <summary data-testid="run-failure-more">Traceback</summary>
          <pre>{failure}</pre>
        </details>
      ) : null}
    </div>
  );
}

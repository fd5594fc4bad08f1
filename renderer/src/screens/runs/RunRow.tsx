import type { RunSummary } from '../../../../core/api/contract.js';
import { formatCompact, formatDateTime, rateUnit, shortenPath } from '../../lib/format.js';
import { firstLine } from '../../components/EngineFailures.js';
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
        {/* One line: a Python traceback is the run's detail, not the list's (Details shows it). */}
        {run.failure ? (
          <div className="run-failure" data-testid="run-failure" title={run.failure}>
            {firstLine(run.failure)}
          </div>
        ) : null}
      </td>
      <td className="cell-path" title={run.datasetPath ?? ''}>
        {run.datasetPath ? shortenPath(run.datasetPath, 40) : '—'}
      </td>
      <td>{run.hostname}</td>
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

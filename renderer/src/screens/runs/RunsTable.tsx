import { useMemo } from 'react';
import { ErrorBanner } from '../../components/States.js';
import { sharedRateUnit } from '../../lib/run-rates.js';
import { useRunsStore } from '../../stores/runs.js';
import { RunRow } from './RunRow.js';

/** The runs database's list, newest first. */
export function RunsTable() {
  const list = useRunsStore((r) => r.list);
  const deleteError = useRunsStore((r) => r.deleteError);
  // A video dataset's rate counts clips: the header names the unit the runs share, or each rate says its own.
  const unit = useMemo(() => sharedRateUnit(list), [list]);
  if (!list.length) return null;
  return (
    <section className="card">
      <div className="table-scroll">
        <table className="table runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">Overlay</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Kind</th>
              <th scope="col">Started</th>
              <th scope="col">Status</th>
              <th scope="col">Dataset</th>
              <th scope="col" className="col-host">
                Host
              </th>
              <th scope="col">Points</th>
              <th scope="col" data-testid="runs-best-header">
                {unit ? `Best ${unit}` : 'Best rate'}
              </th>
              <th scope="col">Verdict</th>
              <th scope="col">
                <span className="sr-only">Details</span>
              </th>
              <th scope="col">
                <span className="sr-only">Delete</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((run) => (
              <RunRow key={run.id} run={run} unitInCell={unit === null} />
            ))}
          </tbody>
        </table>
      </div>
      {deleteError ? <ErrorBanner error={deleteError} title="Cannot delete the run" /> : null}
    </section>
  );
}

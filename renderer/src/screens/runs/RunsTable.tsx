import { ErrorBanner } from '../../components/States.js';
import { useRunsStore } from '../../stores/runs.js';
import { RunRow } from './RunRow.js';

/** The runs database's list, newest first. */
export function RunsTable() {
  const list = useRunsStore((r) => r.list);
  const deleteError = useRunsStore((r) => r.deleteError);
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
              <th scope="col">Host</th>
              <th scope="col">Points</th>
              <th scope="col">Best img/s</th>
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
              <RunRow key={run.id} run={run} />
            ))}
          </tbody>
        </table>
      </div>
      {deleteError ? <ErrorBanner error={deleteError} title="Cannot delete the run" /> : null}
    </section>
  );
}

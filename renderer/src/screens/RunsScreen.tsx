import { useEffect } from 'react';
import { InlineMarkdown } from '../components/InlineMarkdown.js';
import { EmptyState, ErrorBanner, Skeleton } from '../components/States.js';
import { MAX_SELECTED, useRunsStore } from '../stores/runs.js';
import { useUiStore } from '../stores/ui.js';
import { usePick } from '../stores/use-pick.js';
import { OpenRun } from './runs/OpenRun.js';
import { RunsTable } from './runs/RunsTable.js';
import { SelectedRuns } from './runs/SelectedRuns.js';

/** The Runs screen: the runs database's list, the runs picked for overlay and comparison, and one run in full. */
export function RunsScreen() {
  const r = usePick(useRunsStore, 'error', 'loaded', 'loading', 'load');
  const empty = useRunsStore((s) => s.list.length === 0);
  const setScreen = useUiStore((u) => u.setScreen);
  const load = r.load;
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="screen" data-testid="screen-runs">
      <header className="screen-head">
        <h2>Runs</h2>
        <p>
          Every profile is kept in the runs database. Pick up to {MAX_SELECTED} to overlay their throughput; two are compared with the older
          as A, the baseline.
        </p>
      </header>

      {r.error ? <ErrorBanner error={r.error} title="Cannot read the runs" onRetry={() => void load()} /> : null}
      {!r.loaded && r.loading ? <Skeleton rows={4} height={28} /> : null}
      {r.loaded && !r.error && empty ? (
        <EmptyState
          title="No runs yet"
          testId="runs-empty"
          action={
            <button type="button" className="btn btn-primary" onClick={() => setScreen('profile')}>
              Profile a dataset
            </button>
          }
        >
          <p>
            <InlineMarkdown text="Runs appear here when a profile finishes, from this app or from `beton profile`." />
          </p>
        </EmptyState>
      ) : null}
      <RunsTable />
      <SelectedRuns />
      <OpenRun />
    </div>
  );
}

import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../components/States.js';
import { shortenPath } from '../lib/format.js';
import { useBuildsStore, type BuildJob } from '../stores/builds.js';
import { useUiStore } from '../stores/ui.js';
import { BuildStatusCard } from './build/BuildStatusCard.js';
import { BuildTabs } from './build/BuildTabs.js';
import { ReportCard } from './build/ReportCard.js';
import { ThroughputChart } from './build/ThroughputChart.js';

/** The Build screen: the builds of this session as tabs, the shown one's progress, throughput and report. */
export function BuildScreen() {
  // The shown build and the tabs' statuses only: another build's progress does not re-render this one.
  const { order, currentId, select, cancel, job, statuses } = useBuildsStore(
    useShallow((s) => ({
      order: s.order,
      currentId: s.currentId,
      select: s.select,
      cancel: s.cancel,
      job: s.currentId ? s.jobs[s.currentId] : undefined,
      statuses: s.order.map((id) => s.jobs[id]!.status).join(' '),
    })),
  );
  const setScreen = useUiStore((u) => u.setScreen);

  if (!job) {
    return (
      <div className="screen" data-testid="screen-build">
        <header className="screen-head">
          <h2>Build</h2>
        </header>
        <EmptyState
          title="No build yet"
          testId="build-empty"
          action={
            <button type="button" className="btn btn-primary" onClick={() => setScreen('sources')}>
              Choose a source
            </button>
          }
        >
          <p>Builds started from Sources show their progress, live throughput and report here.</p>
        </EmptyState>
      </div>
    );
  }

  const output = job.report?.path ?? job.config?.output ?? null;
  return (
    <div className="screen" data-testid="screen-build">
      <header className="screen-head">
        <h2>Build</h2>
        <p>{output ? <code title={output}>{shortenPath(output, 80)}</code> : 'A build started elsewhere'}</p>
      </header>
      <BuildTabs order={order} currentId={currentId} statuses={statuses.split(' ') as Array<BuildJob['status']>} select={select} />
      <BuildStatusCard job={job} cancel={cancel} />
      <ThroughputChart history={job.history} />
      {job.report ? <ReportCard report={job.report} job={job} /> : null}
    </div>
  );
}

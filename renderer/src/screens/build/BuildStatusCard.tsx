import { ProgressBar, Stat } from '../../components/Form.js';
import { ErrorBanner } from '../../components/States.js';
import { formatDuration, formatEta, formatNumber, formatPercent, formatRate, percent } from '../../lib/format.js';
import { inAppWords, offersSkip } from '../../lib/app-words.js';
import { useBuildsStore, type BuildJob } from '../../stores/builds.js';
import { STATUS_LABEL } from './status-label.js';

/** Where a build stands: progress, rate, time left, and the way out (cancel) or why it stopped. */
/**
 * Why the build failed, in the app's words; a bad file (one the build could have skipped)
 * offers the same build again with "On a bad file: skip it", one click.
 */
function FailedBuild({ job }: { job: BuildJob }) {
  const start = useBuildsStore((s) => s.start);
  const starting = useBuildsStore((s) => s.starting);
  const message = job.message ?? job.status;
  const canSkip = offersSkip(message) && job.config !== null && job.config.onError !== 'skip';
  return (
    <>
      <ErrorBanner error={{ code: 'FAILED', message: inAppWords(message) }} title="The build failed" testId="build-error" />
      {canSkip ? (
        <div className="actions">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="retry-skip"
            disabled={starting}
            onClick={() => void start({ ...job.config!, onError: 'skip' })}
          >
            Retry skipping bad files
          </button>
          <span className="muted">The same build, leaving out the files it cannot read; the report lists them.</span>
        </div>
      ) : null}
    </>
  );
}

export function BuildStatusCard({ job, cancel }: { job: BuildJob; cancel(id: string): Promise<void> }) {
  const p = job.progress;
  const pct = p ? percent(p.done, p.total) : null;
  return (
    <section className="card" data-testid="build-status" data-status={job.status}>
      <div className="progress-head">
        <span className={`status status-${job.status}`}>{STATUS_LABEL[job.status]}</span>
        <span className="progress-percent" data-testid="build-percent">
          {pct === null ? (job.status === 'running' ? 'starting…' : '') : formatPercent(pct)}
        </span>
      </div>
      <ProgressBar value={job.status === 'running' && !p ? null : (pct ?? 0)} label="Build progress" testId="build-progress" />
      <div className="stats">
        <Stat
          label="Samples"
          value={p ? `${formatNumber(p.done)}${p.total !== null ? ` / ${formatNumber(p.total)}` : ''}` : '—'}
          testId="build-done"
        />
        {/* "measuring…" only while the build runs: a failed or cancelled one measured nothing more. */}
        <Stat
          label="Rate (last second)"
          value={p && p.rate !== null ? formatRate(p.rate) : p && job.status === 'running' ? 'measuring…' : '—'}
          testId="build-rate"
        />
        <Stat label="Time left" value={job.status === 'running' ? formatEta(p?.etaMs ?? null) : '—'} testId="build-eta" />
        <Stat label="Elapsed" value={formatDuration((job.finishedAt ?? Date.now()) - job.startedAt)} />
      </div>
      {job.status === 'running' ? (
        <div className="actions">
          <button
            type="button"
            className="btn btn-danger"
            data-testid="cancel-build"
            onClick={() => void cancel(job.id)}
            disabled={job.cancelling}
          >
            {job.cancelling ? 'Cancelling…' : 'Cancel build'}
          </button>
          <span className="muted">Cancelling leaves no partial file.</span>
        </div>
      ) : null}
      {job.status === 'failed' ? <FailedBuild job={job} /> : null}
      {job.status === 'cancelled' ? (
        // The user's own choice, not a failure: said plainly, without the red of an error.
        <p className="notice" role="status" data-testid="build-cancelled">
          The build was cancelled; no file was written.
        </p>
      ) : null}
    </section>
  );
}

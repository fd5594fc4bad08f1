import { ProgressBar } from '../../components/Form.js';
import { ErrorBanner } from '../../components/States.js';
import { percent } from '../../lib/format.js';
import { pointProgressText, type ProfileJob } from '../../stores/profiles.js';

const STATUS_LABEL: Record<ProfileJob['status'], string> = {
  running: 'Measuring',
  ok: 'Done',
  cancelled: 'Cancelled',
  unknown: 'State unknown',
  failed: 'Failed',
};

/**
 * The host's words for what the sweep is doing, without the point count the line already
 * gives ("point 1 of 2", "measuring point 2 of 6: …" start with one that can lag the readings).
 */
export const waitText = (m: string | null | undefined): string => (m ?? '').replace(/^(measuring )?point \d+ of \d+:?\s*/, '');

/** Where a profile job stands: its status, progress and throughput line, and why it stopped. */
export function JobStatusCard({ job, rate }: { job: ProfileJob; rate: string | null }) {
  const pct = job.progress ? percent(job.progress.done, job.progress.total) : null;
  return (
    <section className="card" data-testid="profile-status" data-status={job.status}>
      <div className="progress-head">
        <span className={`status status-${job.status}`}>{STATUS_LABEL[job.status]}</span>
        <span className="muted" data-testid="profile-progress-text">
          {job.mode === 'grid'
            ? // What the sweep waits for, in the host's words ("starting FFCV in … — numba compiles, about 30 s"), after the count.
              `${pointProgressText(job)}${job.status === 'running' && waitText(job.progress?.message) ? ` · ${waitText(job.progress?.message)}` : ''}`
            : job.status === 'running'
              ? (job.progress?.message ?? 'running your command')
              : (job.progress?.message ?? '')}
        </span>
        {rate ? (
          <span className="muted" data-testid="profile-rate">
            {rate}
          </span>
        ) : null}
      </div>
      <ProgressBar
        value={job.mode === 'exec' && job.status === 'running' ? null : (pct ?? 0)}
        label="Profile progress"
        testId="profile-progress"
      />
      {job.status === 'unknown' ? (
        <ErrorBanner
          error={{ code: 'SERVER_GONE', message: job.message ?? 'The connection to the server was lost while this job ran.' }}
          title="State unknown"
          testId="profile-unknown"
        />
      ) : null}
      {job.status === 'failed' ? (
        <ErrorBanner
          error={{ code: job.code ?? 'FAILED', message: job.message ?? job.status }}
          title={job.mode === 'exec' ? 'The command failed' : 'The profile failed'}
          testId="profile-error"
        />
      ) : null}
      {job.status === 'cancelled' ? (
        <p className="notice" role="status" data-testid="profile-cancelled">
          Cancelled: you stopped it.
        </p>
      ) : null}
    </section>
  );
}

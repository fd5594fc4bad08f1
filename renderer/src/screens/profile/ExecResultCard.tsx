import { formatNumber } from '../../lib/format.js';
import type { ProfileOutcome } from '../../lib/types.js';
import type { ProfileJob } from '../../stores/profiles.js';
import { VERDICT_TONE } from './verdict-tone.js';

/** A training command's outcome: its exit, what it loaded, its verdict and, when it failed, the end of its stderr. */
export function ExecResultCard({ outcome, status }: { outcome: Extract<ProfileOutcome, { kind: 'exec' }>; status: ProfileJob['status'] }) {
  return (
    <section className="card" data-testid="exec-result" data-failed={String(outcome.failure !== null)}>
      <h3>{outcome.failure ? 'Command failed' : status === 'cancelled' ? 'Command stopped' : 'Command finished'}</h3>
      <p>
        Exit code{' '}
        <code className={outcome.exitCode !== 0 ? 'bad' : ''} data-testid="exec-exit-code">
          {outcome.exitCode ?? (outcome.signal ? `— (${outcome.signal})` : '—')}
        </code>{' '}
        · {formatNumber(outcome.imagesTotal)} images in {outcome.seconds?.toFixed(1) ?? '—'} s · saved as run {outcome.runId}
        {outcome.failure ? ' (failed)' : ''}
      </p>
      {outcome.verdict ? (
        <p className="verdict-summary" data-testid="exec-verdict" data-kind={outcome.verdict.kind}>
          <span className={`badge badge-${VERDICT_TONE[outcome.verdict.kind] ?? 'neutral'}`}>{outcome.verdict.kind}</span>{' '}
          {outcome.verdict.summary} (Runs → run {outcome.runId} has the evidence and the wait per step.)
        </p>
      ) : null}
      {outcome.failure && outcome.stderrTail.length ? (
        <>
          <h4>Last lines of stderr</h4>
          <pre className="stderr-tail" data-testid="exec-stderr">
            {outcome.stderrTail.join('\n')}
          </pre>
        </>
      ) : null}
    </section>
  );
}

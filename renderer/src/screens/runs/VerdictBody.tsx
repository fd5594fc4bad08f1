import type { Verdict } from '../../lib/types.js';

/** A stored run's verdict: the kind and summary, its evidence and what to try. */
export function VerdictBody({ verdict, testId, exec = false }: { verdict: Verdict | null; testId: string; exec?: boolean }) {
  if (!verdict)
    return (
      <p className="muted">{exec ? 'No verdict: the command ran too briefly to be measured.' : 'No verdict: no point was measured.'}</p>
    );
  return (
    <div data-testid={testId} data-kind={verdict.kind}>
      <p className="verdict-summary">
        <span className="badge">{verdict.kind}</span> {verdict.summary}
      </p>
      <h4>Evidence</h4>
      <ul data-testid={`${testId}-evidence`}>
        {verdict.evidence.map((x, i) => (
          <li key={i}>{x}</li>
        ))}
      </ul>
      <h4>What to try</h4>
      <ul>
        {verdict.advice.length ? (
          verdict.advice.map((x, i) => <li key={i}>{x}</li>)
        ) : (
          <li className="muted">Nothing obvious: this setup is already balanced.</li>
        )}
      </ul>
    </div>
  );
}

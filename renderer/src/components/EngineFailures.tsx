/** An engine that failed while the others went on (the run's engineFailures): what the list shows of it. */
export interface EngineFailureView {
  engine: string;
  message: string;
  detail: string;
  measured: number;
}

/**
 * Each failed engine in one line — what failed and what was kept — with its traceback behind a
 * disclosure (the walk found a raw traceback filling the Runs table). The other engines' points
 * and the answer made from them are shown as usual.
 */
export function EngineFailures({ failures }: { failures: readonly EngineFailureView[] | undefined }) {
  if (!failures?.length) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="engine-failures">
      <div className="banner-text">
        {failures.map((f) => (
          <details key={f.engine} className="engine-failure" data-testid={`engine-failure-${f.engine}`}>
            <summary>
              <strong>{f.engine} failed</strong>: {firstLine(f.message)} ·{' '}
              {f.measured
                ? `its ${f.measured} point${f.measured === 1 ? '' : 's'} measured before are kept`
                : 'no point of it was measured'}
              ; the other engines went on. <span className="muted">(Details)</span>
            </summary>
            <pre data-testid="engine-failure-detail">{f.detail}</pre>
          </details>
        ))}
      </div>
    </div>
  );
}

/** The first line, at most 200 characters: a message is one line on screen, whatever the engine printed. */
export const firstLine = (s: string): string => {
  const l = s.split('\n').find((x) => x.trim()) ?? s;
  return l.length > 200 ? `${l.slice(0, 199)}…` : l;
};

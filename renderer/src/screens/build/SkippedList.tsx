import { inAppWords } from '../../lib/app-words.js';
import type { BuildReport } from '../../lib/types.js';

/** Samples shown at most: the rest are counted (the report file lists them all). */
const MAX_SHOWN = 200;

/** The samples a build skipped (on_error: skip), and why. */
export function SkippedList({ report: r }: { report: BuildReport }) {
  if (!r.skipped.length) return null;
  return (
    <div data-testid="skipped-list">
      <h4>Skipped samples</h4>
      {r.reportPath ? (
        <p className="muted">
          Also listed in <code>{r.reportPath}</code>.
        </p>
      ) : null}
      <ul className="skipped">
        {r.skipped.slice(0, MAX_SHOWN).map((s) => (
          <li key={s.index}>
            <code>{s.source ?? `#${s.index}`}</code>
            {s.field ? <span className="badge">{s.field}</span> : null} {inAppWords(s.reason)}
          </li>
        ))}
        {r.skipped.length > MAX_SHOWN ? <li className="muted">…and {r.skipped.length - MAX_SHOWN} more</li> : null}
      </ul>
    </div>
  );
}

import { useMemo } from 'react';
import { settingsDiff } from '../../lib/run-settings.js';
import type { ProfileRunView } from '../../lib/types.js';
import { VerdictBody } from './VerdictBody.js';

/** Two runs side by side: their settings with what differs marked, and their verdicts (A is the older, the baseline). */
export function SideBySide({ a, b }: { a: ProfileRunView; b: ProfileRunView }) {
  const rows = useMemo(() => settingsDiff(a, b), [a, b]);
  const differing = rows.filter((x) => x.differs).length;
  return (
    <section className="card" data-testid="side-by-side">
      <header className="card-head">
        <h3>
          Settings: run {a.id} (A) and run {b.id} (B)
        </h3>
        <span className="card-sub" data-testid="settings-diff-count">
          {differing
            ? `${differing} setting${differing === 1 ? '' : 's'} differ${differing === 1 ? 's' : ''} (marked)`
            : 'the same settings'}
        </span>
      </header>
      <div className="table-scroll">
        <table className="table compact settings-diff" data-testid="settings-diff">
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">A: run {a.id}</th>
              <th scope="col">B: run {b.id}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((x) => (
              <tr key={x.key} data-key={x.key} data-differs={String(x.differs)} className={x.differs ? 'is-diff' : ''}>
                <th scope="row">
                  <span className="muted">{x.group} · </span>
                  {x.label}
                </th>
                <td className="setting-value">{x.a}</td>
                <td className="setting-value">{x.b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="two-col">
        <div>
          <h4>A: run {a.id}</h4>
          <VerdictBody verdict={a.verdict} testId="verdict-a" />
        </div>
        <div>
          <h4>B: run {b.id}</h4>
          <VerdictBody verdict={b.verdict} testId="verdict-b" />
        </div>
      </div>
    </section>
  );
}

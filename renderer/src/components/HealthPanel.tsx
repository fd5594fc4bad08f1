import type { DatasetCheck } from '../../../core/api/contract.js';
import { formatDateTime, formatNumber } from '../lib/format.js';
import { useDatasetsStore } from '../stores/datasets.js';
import { ErrorBanner, Loading } from './States.js';

/** Sample ids as buttons that open the detail view. */
function Ids({ ids, open }: { ids: readonly number[]; open(i: number): void }) {
  return (
    <span className="id-list">
      {ids.map((id) => (
        <button key={id} type="button" className="link-button" onClick={() => open(id)} data-testid="health-sample">
          #{id}
        </button>
      ))}
    </span>
  );
}

const SHOW = 12;

/**
 * The Dataset screen's Health panel: what `beton check` found (corrupt samples, exact and
 * near duplicates with label disagreements first, outliers, samples per class), read from
 * the check kept beside the file; a button runs it when none is kept or the file changed.
 */
export function HealthPanel() {
  const d = useDatasetsStore();
  const c = d.check;
  return (
    <section
      className="card"
      aria-label="Health"
      data-testid="health-panel"
      data-state={c ? 'checked' : d.checkRunning ? 'running' : 'none'}
    >
      <header className="card-head">
        <h3>Health</h3>
        <span className="card-sub">
          {c
            ? `checked ${formatDateTime(c.createdAt)}: ${formatNumber(c.beton.numSamples)} samples in ${(c.elapsedMs / 1000).toFixed(1)} s`
            : 'corrupt samples, duplicates, near-duplicates, outliers and class balance (beton check)'}
        </span>
        <button
          type="button"
          className="btn btn-small"
          data-testid="health-run"
          disabled={d.checkRunning || !d.openPath}
          onClick={() => void d.loadCheck(true)}
        >
          {d.checkRunning ? 'Checking…' : c ? 'Check again' : 'Run check'}
        </button>
      </header>
      {d.checkRunning ? <Loading label="Decoding every sample once…" /> : null}
      {d.checkError ? <ErrorBanner error={d.checkError} title="The check failed" onRetry={() => void d.loadCheck(true)} /> : null}
      {c === null && !d.checkRunning ? (
        <p className="muted" data-testid="health-none">
          Not checked yet (or the file changed since its last check). The check decodes every sample once and keeps its result in{' '}
          <code>{d.openPath}.check.json</code>.
        </p>
      ) : null}
      {c ? <Findings check={c} open={(i) => void d.openDetail(i)} /> : null}
    </section>
  );
}

function Findings({ check, open }: { check: DatasetCheck; open(i: number): void }) {
  const r = check.result;
  const groups = (list: number[][], conflicts: number, testId: string) => (
    <ul className="health-list" data-testid={testId}>
      {list.slice(0, SHOW).map((g, k) => (
        <li key={g.join()} className={k < conflicts ? 'is-conflict' : undefined}>
          <Ids ids={g} open={open} />
          {k < conflicts ? (
            <span className="badge badge-danger" data-testid="health-conflict">
              labels disagree
            </span>
          ) : null}
        </li>
      ))}
      {list.length > SHOW ? <li className="muted">… {formatNumber(list.length - SHOW)} more</li> : null}
    </ul>
  );
  const classes = Object.entries(r.classes);
  const most = Math.max(1, ...classes.map(([, n]) => n));
  return (
    <>
      <div className="stats">
        <div className="stat">
          <div className="stat-label">Corrupt</div>
          <div className="stat-value" data-testid="health-corrupt">
            {formatNumber(r.corrupt.length)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">Duplicate groups</div>
          <div className="stat-value" data-testid="health-duplicates">
            {formatNumber(r.duplicates.length)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">Near-duplicate groups</div>
          <div className="stat-value" data-testid="health-near">
            {formatNumber(r.near_duplicates.length)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">Outliers</div>
          <div className="stat-value" data-testid="health-outliers">
            {formatNumber(r.outliers.length)}
          </div>
        </div>
        <div className="stat">
          <div className="stat-label">Labels disagree</div>
          <div className="stat-value" data-testid="health-conflicts">
            {formatNumber(check.labelConflicts.duplicates + check.labelConflicts.near_duplicates)} groups
          </div>
        </div>
      </div>
      <div className="health-grid">
        {r.corrupt.length ? (
          <div>
            <h4>Corrupt</h4>
            <ul className="health-list" data-testid="health-corrupt-list">
              {r.corrupt.slice(0, SHOW).map((x) => (
                <li key={x.id}>
                  <Ids ids={[x.id]} open={open} /> <span className="muted">{x.error}</span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {r.duplicates.length ? (
          <div>
            <h4>Exact duplicates</h4>
            {groups(r.duplicates, check.labelConflicts.duplicates, 'health-duplicate-list')}
          </div>
        ) : null}
        {r.near_duplicates.length ? (
          <div>
            <h4>Near-duplicates (≤ {check.thresholds.hamming} of 64 hash bits)</h4>
            {groups(r.near_duplicates, check.labelConflicts.near_duplicates, 'health-near-list')}
          </div>
        ) : null}
        {r.outliers.length ? (
          <div>
            <h4>Outliers</h4>
            <ul className="health-list" data-testid="health-outlier-list">
              {r.outliers.slice(0, SHOW).map((o) => (
                <li key={o.id}>
                  <Ids ids={[o.id]} open={open} /> <span className="muted">{o.reason}</span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {classes.length ? (
          <div>
            <h4>Samples per class</h4>
            <table className="table compact" data-testid="health-classes">
              <tbody>
                {classes.slice(0, 50).map(([name, n]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td className="num">{formatNumber(n)}</td>
                    <td className="bar-cell">
                      <div className="hbar" style={{ width: `${(n / most) * 100}%` }} aria-hidden="true" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
    </>
  );
}

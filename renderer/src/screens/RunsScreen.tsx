import { InlineMarkdown } from '../components/InlineMarkdown.js';
import { useEffect, useMemo } from 'react';
import { ChartCard, Lines } from '../components/Charts.js';
import { EngineSummary, PointsTable } from '../components/PointsTable.js';
import { ProfileCharts } from '../components/ProfileCharts.js';
import { StepWaitChart } from '../components/StepWaitChart.js';
import { EmptyState, ErrorBanner, Loading, Skeleton } from '../components/States.js';
import { formatCompact, formatDateTime, rateUnit, shortenPath } from '../lib/format.js';
import { pointLabel } from '../lib/profile-form.js';
import { overlayChart } from '../lib/series.js';
import { runSettings, settingsDiff, type SettingGroup } from '../lib/run-settings.js';
import type { PointConfig, ProfileRunView, Verdict } from '../lib/types.js';
import { MAX_SELECTED, useRunsStore } from '../stores/runs.js';
import { useUiStore } from '../stores/ui.js';

/** B faster than A is better (green), slower worse (red); about the same or unknown stays neutral. */
const TONE: Record<string, string> = { faster: 'good', slower: 'bad', same: '', none: '' };

export function RunsScreen() {
  const r = useRunsStore();
  const setScreen = useUiStore((u) => u.setScreen);
  const load = r.load;
  useEffect(() => {
    void load();
  }, [load]);

  const chosen = useMemo(() => r.selected.map((id) => r.details[id]?.run).filter((x): x is ProfileRunView => !!x), [r.selected, r.details]);
  const overlay = useMemo(() => overlayChart(chosen), [chosen]);

  return (
    <div className="screen" data-testid="screen-runs">
      <header className="screen-head">
        <h2>Runs</h2>
        <p>
          Every profile is kept in the runs database. Pick up to {MAX_SELECTED} to overlay their throughput; two are compared with the older
          as A, the baseline.
        </p>
      </header>

      {r.error ? <ErrorBanner error={r.error} title="Cannot read the runs" onRetry={() => void r.load()} /> : null}
      {!r.loaded && r.loading ? <Skeleton rows={4} height={28} /> : null}
      {r.loaded && !r.error && r.list.length === 0 ? (
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

      {r.list.length ? (
        <section className="card">
          <div className="table-scroll">
            <table className="table runs-table" data-testid="runs-table">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="sr-only">Overlay</span>
                  </th>
                  <th scope="col">Run</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Started</th>
                  <th scope="col">Status</th>
                  <th scope="col">Dataset</th>
                  <th scope="col">Host</th>
                  <th scope="col">Points</th>
                  <th scope="col">Best img/s</th>
                  <th scope="col">Verdict</th>
                  <th scope="col">
                    <span className="sr-only">Details</span>
                  </th>
                  <th scope="col">
                    <span className="sr-only">Delete</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {r.list.map((run) => {
                  const sel = r.selected.includes(run.id);
                  return (
                    <tr key={run.id} data-testid="run-row" data-id={run.id} className={sel ? 'is-selected' : ''}>
                      <td>
                        <input
                          type="checkbox"
                          checked={sel}
                          onChange={() => r.toggle(run.id)}
                          aria-label={`Overlay run ${run.id}`}
                          data-testid={`run-select-${run.id}`}
                        />
                      </td>
                      <th scope="row">{run.id}</th>
                      <td>{run.kind}</td>
                      <td>{formatDateTime(run.startedAt)}</td>
                      <td>
                        <span className={`status status-${run.status}`} title={run.failure ?? undefined}>
                          {run.status}
                        </span>
                        {run.failure ? (
                          <div className="run-failure" data-testid="run-failure">
                            {run.failure}
                          </div>
                        ) : null}
                      </td>
                      <td className="cell-path" title={run.datasetPath ?? ''}>
                        {run.datasetPath ? shortenPath(run.datasetPath, 40) : '—'}
                      </td>
                      <td>{run.hostname}</td>
                      {/* A command run has no grid points: its img/s is the command's own (exec verdict). */}
                      <td className="num">{run.kind === 'exec' ? '—' : run.points}</td>
                      <td className="num">{formatCompact(run.bestImagesPerSec)}</td>
                      <td>{run.verdictKind ? <span className="badge">{run.verdictKind}</span> : '—'}</td>
                      <td>
                        <button
                          type="button"
                          className="btn btn-small"
                          data-testid={`run-open-${run.id}`}
                          aria-pressed={r.open === run.id}
                          onClick={() => r.openRun(r.open === run.id ? null : run.id)}
                        >
                          {r.open === run.id ? 'Hide' : 'Details'}
                        </button>
                      </td>
                      <td>
                        {r.confirmDelete === run.id ? (
                          <span className="confirm" role="group" aria-label={`Delete run ${run.id}?`}>
                            <button
                              type="button"
                              className="btn btn-small btn-danger"
                              data-testid="confirm-delete"
                              onClick={() => void r.remove(run.id)}
                              disabled={r.deleting === run.id}
                              autoFocus
                            >
                              {r.deleting === run.id ? 'Deleting…' : 'Delete'}
                            </button>
                            <button type="button" className="btn btn-small" onClick={() => r.askDelete(null)}>
                              Keep
                            </button>
                          </span>
                        ) : (
                          <button
                            type="button"
                            className="btn btn-small btn-ghost"
                            data-testid={`run-delete-${run.id}`}
                            onClick={() => r.askDelete(run.id)}
                            aria-label={`Delete run ${run.id}`}
                          >
                            Delete
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {r.deleteError ? <ErrorBanner error={r.deleteError} title="Cannot delete the run" /> : null}
        </section>
      ) : null}

      {r.selected.length ? (
        <>
          {r.selected.some((id) => r.details[id]?.loading) ? <Loading label="Loading the selected runs…" /> : null}
          {r.selected.map((id) =>
            r.details[id]?.error ? <ErrorBanner key={id} error={r.details[id]!.error!} title={`Cannot load run ${id}`} /> : null,
          )}
          <ChartCard
            title="Images/s vs workers"
            subtitle={`best per worker count · ${r.selected.map((id) => `run ${id}`).join(' vs ')}`}
            testId="overlay-chart"
            count={overlay.rows.length}
            empty="The selected runs have no measured points (command runs are timelines only)."
          >
            <Lines rows={overlay.rows} x="workers" lines={overlay.series.map((k) => ({ key: k }))} xLabel="workers" dots />
          </ChartCard>
          {chosen.length === 2 ? (
            <SideBySide a={[...chosen].sort((x, y) => x.id - y.id)[0]!} b={[...chosen].sort((x, y) => x.id - y.id)[1]!} />
          ) : null}
          {r.comparison?.data ? (
            <section className="card" data-testid="compare-table">
              <header className="card-head">
                <h3>
                  Run {r.comparison.b} (B) against run {r.comparison.a} (A)
                </h3>
                <span className="card-sub" data-testid="compare-context">
                  {r.comparison.data.sameMachine ? 'same machine' : 'different machines'} ·{' '}
                  <span data-testid="compare-dataset" data-same={String(r.comparison.data.sameDataset)}>
                    {r.comparison.data.datasetNote}
                  </span>
                </span>
              </header>
              {r.comparison.data.best ? (
                <p
                  className={`compare-best ${TONE[r.comparison.data.best.direction ?? 'none']}`}
                  data-testid="compare-best"
                  data-direction={r.comparison.data.best.direction ?? 'none'}
                >
                  Best point: {r.comparison.data.best.text}.
                </p>
              ) : null}
              {r.comparison.data.rows.length ? (
                <table className="table compact">
                  <thead>
                    <tr>
                      <th scope="col">Point</th>
                      <th scope="col">A: run {r.comparison.a}</th>
                      <th scope="col">B: run {r.comparison.b}</th>
                      <th scope="col">B against A</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.comparison.data.rows.map((row, i) => (
                      <tr key={i}>
                        <th scope="row">{pointLabel(row.config)}</th>
                        <td className="num">{formatCompact(row.a.imagesPerSec)}</td>
                        <td className="num">{formatCompact(row.b.imagesPerSec)}</td>
                        <td
                          className={`num ${TONE[row.direction ?? 'none']}`}
                          data-testid="compare-change"
                          data-direction={row.direction ?? 'none'}
                        >
                          {row.text}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <p className="muted">The two runs measured no common grid point.</p>
              )}
            </section>
          ) : null}
          {r.comparison?.error ? <ErrorBanner error={r.comparison.error} title="Cannot compare" /> : null}
        </>
      ) : null}

      {r.open !== null ? (
        r.details[r.open]?.run ? (
          <RunDetail run={r.details[r.open]!.run!} onClose={() => r.openRun(null)} />
        ) : r.details[r.open]?.error ? (
          <ErrorBanner error={r.details[r.open]!.error!} title={`Cannot load run ${r.open}`} />
        ) : (
          <Loading label={`Loading run ${r.open}…`} />
        )
      ) : null}
    </div>
  );
}

const GROUPS: SettingGroup[] = ['Plan', 'Machine', 'Dataset'];

/** Grid configs by point index, from the measured points (a cancelled point has none: its span is named by number). */
const configsOf = (run: ProfileRunView): Array<PointConfig | undefined> => {
  const out: Array<PointConfig | undefined> = [];
  for (const p of run.points) out[p.index] = p.config;
  return out;
};

function VerdictBody({ verdict, testId, exec = false }: { verdict: Verdict | null; testId: string; exec?: boolean }) {
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

/** One run in full: every setting, the evidence behind its verdict, its timelines and its points. */
function RunDetail({ run, onClose }: { run: ProfileRunView; onClose: () => void }) {
  const settings = useMemo(() => runSettings(run), [run]);
  const configs = useMemo(() => configsOf(run), [run]);
  return (
    <section className="card run-detail" data-testid="run-detail" data-id={run.id} aria-label={`Run ${run.id}`}>
      <header className="card-head">
        <h3>
          Run {run.id} · {run.kind === 'exec' ? 'training command' : 'loader sweep'}
        </h3>
        <span className="card-sub">
          <span className={`status status-${run.status}`}>{run.status}</span> · started {formatDateTime(run.startedAt)}
          {run.finishedAt ? ` · finished ${formatDateTime(run.finishedAt)}` : ''}
        </span>
        <button type="button" className="btn btn-small btn-ghost" onClick={onClose} data-testid="run-detail-close">
          Close
        </button>
      </header>
      {run.status === 'interrupted' ? (
        <div className="banner banner-warn" role="status" data-testid="run-interrupted">
          <div className="banner-text">
            <strong>Interrupted</strong>: the run stopped before its end ({run.failure?.message ?? 'its process went away'}). What it
            finished is kept:{' '}
            {run.kind === 'exec' ? `${run.samples.length} samples` : `${run.points.length} point${run.points.length === 1 ? '' : 's'}`}.
          </div>
        </div>
      ) : run.failure ? (
        <ErrorBanner error={{ code: run.failure.code ?? 'FAILED', message: run.failure.message }} title="The run failed" />
      ) : null}
      <div className="two-col">
        <div>
          <h4>Settings</h4>
          <table className="table compact settings-table" data-testid="run-settings">
            <tbody>
              {GROUPS.map((g) =>
                settings
                  .filter((x) => x.group === g)
                  .map((x, i) => (
                    <tr key={x.key} data-key={x.key}>
                      <td className="muted">{i === 0 ? g : ''}</td>
                      <th scope="row">{x.label}</th>
                      <td className="setting-value">{x.value}</td>
                    </tr>
                  )),
              )}
            </tbody>
          </table>
        </div>
        <div>
          <h4>Verdict</h4>
          <VerdictBody verdict={run.verdict} testId="run-verdict" exec={run.kind === 'exec'} />
        </div>
      </div>
      {run.kind === 'exec' ? <StepWaitChart verdict={run.verdict} /> : null}
      {run.points.length ? (
        <>
          <h4>Grid points</h4>
          <EngineSummary points={run.points} />
          <PointsTable points={run.points} testId="run-points" />
        </>
      ) : null}
      <h4>Timelines</h4>
      <ProfileCharts samples={run.samples} configs={configs} rate={rateUnit(run.dataset?.schema)} />
    </section>
  );
}

/** Two runs side by side: their settings with what differs marked, and their verdicts (A is the older, the baseline). */
function SideBySide({ a, b }: { a: ProfileRunView; b: ProfileRunView }) {
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

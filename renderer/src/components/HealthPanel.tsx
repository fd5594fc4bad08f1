import { usePick } from '../stores/use-pick.js';
import type { ReactNode } from 'react';
import type { BuildSkips, DatasetCheck } from '../../../core/api/contract.js';
import { inAppWords } from '../lib/app-words.js';
import { DuplicateGroup } from './DuplicateGroup.js';
import { formatDateTime, formatEta, formatNumber, formatPercent, formatRate, percent } from '../lib/format.js';
import { useDatasetsStore, type CheckJob } from '../stores/datasets.js';
import { ProgressBar, Stat } from './Form.js';
import { ErrorBanner } from './States.js';

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
/** Groups shown as thumbnails (each member one small preview request). */
const THUMB_GROUPS = 4;

/** A titled part of the findings, shown only when it found something. */
function Finding({ title, count, children }: { title: ReactNode; count: number; children: ReactNode }) {
  if (count === 0) return null;
  return (
    <div>
      <h4>{title}</h4>
      {children}
    </div>
  );
}

/** Samples with a note each (corrupt ones and their error, outliers and why), the first SHOW. */
function NoteList<T extends { id: number }>({
  items,
  note,
  testId,
  open,
}: {
  items: readonly T[];
  note(x: T): string;
  testId: string;
  open(i: number): void;
}) {
  return (
    <ul className="health-list" data-testid={testId}>
      {items.slice(0, SHOW).map((x) => (
        <li key={x.id}>
          <Ids ids={[x.id]} open={open} /> <span className="muted">{note(x)}</span>
        </li>
      ))}
    </ul>
  );
}

/** Groups of duplicate samples, the first `conflicts` of them (listed first) with labels that disagree. */
function GroupList({
  groups,
  conflicts,
  testId,
  open,
  path,
}: {
  groups: readonly number[][];
  conflicts: number;
  testId: string;
  open(i: number): void;
  path: string | null;
}) {
  return (
    <ul className="health-list" data-testid={testId}>
      {groups.slice(0, SHOW).map((g, k) => (
        <li key={g.join()} className={k < conflicts ? 'is-conflict' : undefined}>
          {/* The first groups side by side, as thumbnails with their files; the rest as ids. */}
          {path && k < THUMB_GROUPS ? (
            <DuplicateGroup path={path} ids={g} open={open} testId="health-group" />
          ) : (
            <Ids ids={g} open={open} />
          )}
          {k < conflicts ? (
            <span className="badge badge-danger" data-testid="health-conflict">
              labels disagree
            </span>
          ) : null}
        </li>
      ))}
      {groups.length > SHOW ? <li className="muted">… {formatNumber(groups.length - SHOW)} more</li> : null}
    </ul>
  );
}

/**
 * The Dataset screen's Health panel: what `beton check` found (corrupt samples, exact and
 * near duplicates with label disagreements first, outliers, samples per class), read from
 * the check kept beside the file; a button runs it when none is kept or the file changed.
 */
export function HealthPanel() {
  const d = usePick(
    useDatasetsStore,
    'check',
    'checkRunning',
    'checkError',
    'checkJob',
    'checkCancelled',
    'openPath',
    'loadCheck',
    'cancelCheck',
    'openDetail',
  );
  const c = d.check;
  const skipped = useDatasetsStore((s) => s.inspect?.skipped ?? null);
  return (
    <section
      className="card"
      aria-label="Health"
      data-testid="health-panel"
      data-state={d.checkRunning ? 'running' : c ? 'checked' : 'none'}
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
      {skipped ? <BuildSkipped skips={skipped} /> : null}
      {d.checkJob ? <CheckProgress job={d.checkJob} cancel={() => void d.cancelCheck()} /> : null}
      {d.checkCancelled && !d.checkRunning ? (
        // The user's own choice, not a failure: said plainly, without the red of an error.
        <p className="notice" role="status" data-testid="health-cancelled">
          The check was cancelled; nothing was kept{c ? ' (the findings below are from the last complete check)' : ''}.
        </p>
      ) : null}
      {d.checkError ? <ErrorBanner error={d.checkError} title="The check failed" onRetry={() => void d.loadCheck(true)} /> : null}
      {c === null && !d.checkRunning && !d.checkCancelled ? (
        <p className="muted" data-testid="health-none">
          Not checked yet (or the file changed since its last check). The check decodes every sample once and keeps its result in{' '}
          <code>{d.openPath}.check.json</code>.
        </p>
      ) : null}
      {c ? <Findings check={c} open={(i) => void d.openDetail(i)} path={d.openPath} /> : null}
    </section>
  );
}

/** A running check: samples decoded of the total, the rate, time left, and Cancel. */
function CheckProgress({ job, cancel }: { job: CheckJob; cancel(): void }) {
  const p = job.progress;
  const pct = p ? percent(p.done, p.total) : null;
  return (
    <div className="health-progress" data-testid="health-progress" data-done={p?.done ?? 0}>
      <div className="progress-head">
        <span className="muted">Decoding every sample once…</span>
        <span className="progress-percent" data-testid="health-percent">
          {pct === null ? 'starting…' : formatPercent(pct)}
        </span>
      </div>
      <ProgressBar value={pct} label="Check progress" testId="health-progress-bar" />
      <div className="stats">
        <Stat
          label="Samples"
          value={p ? `${formatNumber(p.done)}${p.total !== null ? ` / ${formatNumber(p.total)}` : ''}` : '—'}
          testId="health-done"
        />
        <Stat label="Rate" value={p ? formatRate(p.rate) : '—'} testId="health-rate" />
        <Stat label="Time left" value={formatEta(p?.etaMs ?? null)} testId="health-eta" />
      </div>
      <div className="actions">
        <button
          type="button"
          className="btn btn-danger"
          data-testid="health-cancel"
          onClick={cancel}
          disabled={job.id === null || job.cancelling}
        >
          {job.cancelling ? 'Cancelling…' : 'Cancel check'}
        </button>
        <span className="muted">Cancelling keeps no result.</span>
      </div>
    </div>
  );
}

function Findings({ check, open, path }: { check: DatasetCheck; open(i: number): void; path: string | null }) {
  const r = check.result;
  const classes = Object.entries(r.classes);
  const most = Math.max(1, ...classes.map(([, n]) => n));
  return (
    <>
      <div className="stats">
        <Stat label="Corrupt" testId="health-corrupt" value={formatNumber(r.corrupt.length)} />
        <Stat label="Duplicate groups" testId="health-duplicates" value={formatNumber(r.duplicates.length)} />
        <Stat label="Near-duplicate groups" testId="health-near" value={formatNumber(r.near_duplicates.length)} />
        <Stat label="Outliers" testId="health-outliers" value={formatNumber(r.outliers.length)} />
        <Stat
          label="Labels disagree"
          testId="health-conflicts"
          value={`${formatNumber(check.labelConflicts.duplicates + check.labelConflicts.near_duplicates)} groups`}
        />
      </div>
      <div className="health-grid">
        <Finding title="Corrupt" count={r.corrupt.length}>
          <NoteList items={r.corrupt} note={(x) => x.error} testId="health-corrupt-list" open={open} />
        </Finding>
        <Finding title="Exact duplicates" count={r.duplicates.length}>
          <GroupList
            groups={r.duplicates}
            conflicts={check.labelConflicts.duplicates}
            testId="health-duplicate-list"
            open={open}
            path={path}
          />
        </Finding>
        <Finding title={`Near-duplicates (≤ ${check.thresholds.hamming} of 64 hash bits)`} count={r.near_duplicates.length}>
          <GroupList
            groups={r.near_duplicates}
            conflicts={check.labelConflicts.near_duplicates}
            testId="health-near-list"
            open={open}
            path={path}
          />
        </Finding>
        <Finding title="Outliers" count={r.outliers.length}>
          <NoteList items={r.outliers} note={(o) => o.reason} testId="health-outlier-list" open={open} />
        </Finding>
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

/** What the build left out (its skipped-samples report beside the file): the check cannot see files that never got in. */
function BuildSkipped({ skips }: { skips: BuildSkips }) {
  return (
    <div className="health-skipped" data-testid="health-skipped" data-count={skips.count}>
      <p className="field-msg field-warning">
        The build left out {formatNumber(skips.count)} source {skips.count === 1 ? 'file' : 'files'} it could not read (listed in{' '}
        <code>{skips.reportPath}</code>):
      </p>
      <ul className="health-list" data-testid="health-skipped-list">
        {skips.items.slice(0, SHOW).map((x) => (
          <li key={x.index}>
            <code>{x.path ?? `source item ${x.index}`}</code> <span className="muted">{inAppWords(x.reason)}</span>
          </li>
        ))}
        {skips.count > SHOW ? <li className="muted">… {formatNumber(skips.count - SHOW)} more</li> : null}
      </ul>
    </div>
  );
}

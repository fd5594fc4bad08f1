import { useShallow } from 'zustand/react/shallow';
import { ChartCard, Lines } from '../components/Charts.js';
import { ProgressBar, Stat } from '../components/Form.js';
import { EmptyState, ErrorBanner } from '../components/States.js';
import {
  formatBytes,
  formatDuration,
  formatEta,
  formatNumber,
  formatPercent,
  formatRate,
  formatRatio,
  percent,
  shortenPath,
} from '../lib/format.js';
import type { BuildReport } from '../lib/types.js';
import { useBuildsStore, type BuildJob } from '../stores/builds.js';
import { useDatasetsStore } from '../stores/datasets.js';
import { useExportStore } from '../stores/export.js';
import { useProfilesStore } from '../stores/profiles.js';
import { useUiStore } from '../stores/ui.js';

const STATUS_LABEL: Record<BuildJob['status'], string> = { running: 'Building', ok: 'Done', cancelled: 'Cancelled', failed: 'Failed' };

export function BuildScreen() {
  // The shown build and the tabs' statuses only: another build's progress does not re-render this one.
  const { order, currentId, select, cancel, job, statuses } = useBuildsStore(
    useShallow((s) => ({
      order: s.order,
      currentId: s.currentId,
      select: s.select,
      cancel: s.cancel,
      job: s.currentId ? s.jobs[s.currentId] : undefined,
      statuses: s.order.map((id) => s.jobs[id]!.status).join(' '),
    })),
  );
  const setScreen = useUiStore((u) => u.setScreen);
  const statusOf = statuses.split(' ') as Array<BuildJob['status']>;

  if (!job) {
    return (
      <div className="screen" data-testid="screen-build">
        <header className="screen-head">
          <h2>Build</h2>
        </header>
        <EmptyState
          title="No build yet"
          testId="build-empty"
          action={
            <button type="button" className="btn btn-primary" onClick={() => setScreen('sources')}>
              Choose a source
            </button>
          }
        >
          <p>Builds started from Sources show their progress, live throughput and report here.</p>
        </EmptyState>
      </div>
    );
  }

  const p = job.progress;
  const pct = p ? percent(p.done, p.total) : null;
  const output = job.report?.path ?? job.config?.output ?? null;
  return (
    <div className="screen" data-testid="screen-build">
      <header className="screen-head">
        <h2>Build</h2>
        <p>{output ? <code title={output}>{shortenPath(output, 80)}</code> : 'A build started elsewhere'}</p>
      </header>

      {order.length > 1 ? (
        <div className="tabs" role="tablist" aria-label="Builds">
          {order.map((id, i) => (
            <button
              key={id}
              type="button"
              role="tab"
              className={`tab ${id === currentId ? 'is-active' : ''}`}
              aria-selected={id === currentId}
              tabIndex={id === currentId ? 0 : -1}
              onClick={() => select(id)}
            >
              Build {order.length - i} · {STATUS_LABEL[statusOf[i]!]}
            </button>
          ))}
        </div>
      ) : null}

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
          <Stat label="Rate (last second)" value={p ? (p.rate === null ? 'measuring…' : formatRate(p.rate)) : '—'} testId="build-rate" />
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
        {job.status === 'failed' ? (
          <ErrorBanner error={{ code: 'FAILED', message: job.message ?? job.status }} title="The build failed" testId="build-error" />
        ) : null}
        {job.status === 'cancelled' ? (
          // The user's own choice, not a failure: said plainly, without the red of an error.
          <p className="notice" role="status" data-testid="build-cancelled">
            The build was cancelled; no file was written.
          </p>
        ) : null}
      </section>

      <ChartCard
        title="Throughput"
        subtitle="samples/s over the last second, over time"
        testId="throughput-chart"
        count={job.history.length}
        empty="The chart starts with the second progress report (the first is the baseline)."
      >
        <Lines
          rows={job.history}
          x="t"
          lines={[{ key: 'rate', name: 'samples/s' }]}
          xLabel="seconds"
          xFormat={(v) => `${Math.round(v)}`}
          unit="samples/s"
          xUnit="s"
        />
      </ChartCard>

      {job.report ? <Report report={job.report} job={job} /> : null}
    </div>
  );
}

/** Sources against the file, both named: below 1× the file is the larger (raw pixels, page padding on a small build). */
function compression(r: BuildReport): string {
  if (r.compressionRatio === null) return '— (the source sizes are unknown)';
  const ratio = r.compressionRatio;
  return ratio >= 1
    ? `${formatRatio(ratio)} (${formatBytes(r.sourceBytes)} of sources)`
    : `${formatRatio(ratio)}: the file is ${formatRatio(1 / ratio)} its ${formatBytes(r.sourceBytes)} of sources`;
}

function Report({ report: r, job }: { report: BuildReport; job: BuildJob }) {
  const setScreen = useUiStore((u) => u.setScreen);
  const openDataset = useDatasetsStore((d) => d.open);
  const setProfileForm = useProfilesStore((p) => p.setForm);
  const setExportForm = useExportStore((e) => e.setForm);
  const totalHeap = Object.values(r.heapBytes).reduce((a, b) => a + b, 0);
  const modes = Object.entries(r.imageModes);
  return (
    <section className="card" data-testid="build-report">
      <header className="card-head">
        <h3>Report</h3>
        <span className="card-sub">{r.source ? `${r.source.kind} · ${shortenPath(r.source.path, 60)}` : null}</span>
      </header>
      <div className="stats">
        <Stat label="Samples written" value={formatNumber(r.numSamples)} testId="report-samples" />
        <Stat label="Skipped" value={formatNumber(r.skipped.length)} testId="report-skipped" />
        <Stat label="File size" value={formatBytes(r.fileSize)} testId="report-size" />
        <Stat label="Pages" value={`${formatNumber(r.pages)} × ${formatBytes(r.pageSize)}`} />
        <Stat label="Compression" value={compression(r)} testId="report-ratio" />
        <Stat label="Time" value={formatDuration(r.elapsedMs)} testId="report-time" />
        <Stat label="Average speed" value={formatRate(r.samplesPerSec)} testId="report-speed" />
        <Stat label="JPEG pass-through" value={formatNumber(r.passThrough)} />
      </div>

      <div className="two-col">
        <div>
          <h4>Bytes per field</h4>
          <table className="table compact" data-testid="report-bytes">
            <tbody>
              {Object.entries(r.heapBytes).map(([name, bytes]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td className="num">{formatBytes(bytes)}</td>
                  <td className="bar-cell">
                    <div className="hbar" style={{ width: `${totalHeap && bytes ? Math.max(1, (bytes / totalHeap) * 100) : 0}%` }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <h4>Image modes</h4>
          {modes.length === 0 ? (
            <p className="muted">No image fields.</p>
          ) : (
            <table className="table compact" data-testid="report-modes">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">raw</th>
                  <th scope="col">JPEG</th>
                  <th scope="col">passed through</th>
                </tr>
              </thead>
              <tbody>
                {modes.map(([name, m]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td className="num">{formatNumber(m.raw)}</td>
                    <td className="num">{formatNumber(m.jpg)}</td>
                    <td className="num">{formatNumber(m.passThrough)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>

      <LabelMappings job={job} />

      {r.skipped.length ? (
        <div data-testid="skipped-list">
          <h4>Skipped samples</h4>
          {r.reportPath ? (
            <p className="muted">
              Also listed in <code>{r.reportPath}</code>.
            </p>
          ) : null}
          <ul className="skipped">
            {r.skipped.slice(0, 200).map((s) => (
              <li key={s.index}>
                <code>{s.source ?? `#${s.index}`}</code>
                {s.field ? <span className="badge">{s.field}</span> : null} {s.reason}
              </li>
            ))}
            {r.skipped.length > 200 ? <li className="muted">…and {r.skipped.length - 200} more</li> : null}
          </ul>
        </div>
      ) : null}

      <div className="actions">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="open-in-dataset"
          onClick={() => {
            setScreen('dataset');
            void openDataset(r.path);
          }}
        >
          Open in Dataset
        </button>
        <button
          type="button"
          className="btn"
          data-testid="profile-this"
          onClick={() => {
            setProfileForm({ file: r.path, mode: 'grid' });
            setScreen('profile');
          }}
        >
          Profile loading
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setExportForm({ file: r.path, includeBuild: job.config !== null });
            setScreen('export');
          }}
        >
          Export code
        </button>
      </div>
    </section>
  );
}

/** The category → int mappings the build stored (from its config): which integer each value became. */
function LabelMappings({ job }: { job: BuildJob }) {
  const maps = (job.config?.fields ?? []).flatMap((f) =>
    f.type === 'int' && f.categories ? [{ name: f.name, categories: f.categories }] : [],
  );
  if (!maps.length) return null;
  return (
    <div data-testid="report-label-maps">
      <h4>Label mappings</h4>
      {maps.map((m) => (
        <p key={m.name} className="muted" data-testid={`label-map-${m.name}`}>
          <strong>{m.name}</strong>:{' '}
          {m.categories
            .slice(0, 50)
            .map((c, i) => `${c} → ${i}`)
            .join(', ')}
          {m.categories.length > 50 ? `, …and ${m.categories.length - 50} more` : ''}
        </p>
      ))}
    </div>
  );
}

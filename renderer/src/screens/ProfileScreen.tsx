import { useEffect, useMemo } from 'react';
import { ChartCard, Lines } from '../components/Charts.js';
import { PathPicker } from '../components/FileBrowser.js';
import { ProfileCharts } from '../components/ProfileCharts.js';
import { bestPoint, EngineSummary, PointsTable } from '../components/PointsTable.js';
import { Check, ProgressBar, SelectField, TextField } from '../components/Form.js';
import { EmptyState, ErrorBanner } from '../components/States.js';
import { formatNumber, formatRate, percent } from '../lib/format.js';
import { pointLabel, validateProfileForm, type DecoderKind } from '../lib/profile-form.js';
import { livePointRates, workersChart } from '../lib/series.js';
import { rateText } from '../lib/run-rates.js';
import type { EngineName, OrderName, PointResult, Verdict } from '../lib/types.js';
import { useEnvStore } from '../stores/env.js';
import { useExportStore } from '../stores/export.js';
import { InlineMarkdown } from '../components/InlineMarkdown.js';
import { pointProgressText, profileStartErrorFor, shownJob, useProfilesStore, type ProfileJob } from '../stores/profiles.js';
import { useRunsStore } from '../stores/runs.js';
import { useUiStore } from '../stores/ui.js';

const ORDERS: Array<{ value: OrderName; label: string }> = [
  { value: 'sequential', label: 'sequential' },
  { value: 'random', label: 'random' },
  { value: 'quasi_random', label: 'quasi-random' },
];

const ENGINES: Array<{ value: EngineName; label: string }> = [
  { value: 'beton', label: 'beton (ours)' },
  { value: 'ffcv', label: 'FFCV (Python)' },
  { value: 'torch', label: 'PyTorch DataLoader' },
];

const toggle = <T,>(xs: T[], x: T, on: boolean): T[] => (on ? (xs.includes(x) ? xs : [...xs, x]) : xs.filter((y) => y !== x));

export function ProfileScreen() {
  const p = useProfilesStore();
  const f = p.form;
  const cores = useEnvStore((e) => e.info?.cores ?? 1);
  // beton serve without --allow-exec refuses training commands (EXEC_DISABLED); say so up front.
  const execOff = useEnvStore((e) => e.info?.allowExec === false);
  const checked = useMemo(
    () =>
      validateProfileForm(f, {
        cores,
        numSamples: p.fileSamples && p.fileSamples.path === f.file.trim() ? p.fileSamples.numSamples : null,
      }),
    [f, cores, p.fileSamples],
  );
  // The command field is not red before anything is typed in it (Start stays off, the hint says what to type).
  const e: Record<string, string | undefined> = { ...checked.errors };
  if (!p.touched.command && !f.command.trim()) delete e.command;
  const running = p.job?.status === 'running';
  const job = shownJob(p);
  const startError = profileStartErrorFor(p, checked.params);

  // Which engines this host can run, once: the form says plainly how to get a missing one.
  const loadEngines = p.loadEngines;
  useEffect(() => {
    void loadEngines();
  }, [loadEngines]);

  // Learn the file's sample count (to check batch sizes) shortly after it is typed.
  const checkFile = p.checkFile;
  useEffect(() => {
    if (f.mode !== 'grid' || !f.file.trim()) return;
    const t = setTimeout(() => void checkFile(), 300);
    return () => clearTimeout(t);
  }, [f.file, f.mode, checkFile]);

  return (
    <div className="screen" data-testid="screen-profile">
      <header className="screen-head">
        <h2>Profile</h2>
        <p>Measure how fast a dataset loads across a grid of settings — or sample your own training command — and find the bottleneck.</p>
      </header>

      <section className="card">
        <div className="segmented" role="group" aria-label="What to profile">
          <button
            type="button"
            aria-pressed={f.mode === 'grid'}
            className={f.mode === 'grid' ? 'is-active' : ''}
            onClick={() => p.setForm({ mode: 'grid' })}
            data-testid="mode-grid"
          >
            Loader sweep
          </button>
          <button
            type="button"
            aria-pressed={f.mode === 'exec'}
            className={f.mode === 'exec' ? 'is-active' : ''}
            onClick={() => p.setForm({ mode: 'exec' })}
            data-testid="mode-exec"
          >
            Training command
          </button>
        </div>

        {f.mode === 'grid' ? (
          <div className="grid-form">
            <div className="span-2">
              <PathPicker
                label=".beton file"
                value={f.file}
                onChange={(file) => p.setForm({ file })}
                pick="file"
                accept={['beton']}
                testId="profile-file"
                error={e.file}
              />
            </div>
            <TextField
              label="Workers"
              value={f.workers}
              onChange={(workers) => p.setForm({ workers })}
              error={e.workers}
              testId="profile-workers"
              placeholder={`auto: 1, 2, 4 … ${cores}`}
              hint="Comma-separated worker counts."
            />
            <TextField
              label="Batch sizes"
              value={f.batchSizes}
              onChange={(batchSizes) => p.setForm({ batchSizes })}
              error={e.batchSizes}
              testId="profile-batch"
            />
            <fieldset className="field">
              <legend>Orders</legend>
              <div className="checks">
                {ORDERS.map((o) => (
                  <Check
                    key={o.value}
                    label={o.label}
                    checked={f.orders.includes(o.value)}
                    onChange={(on) => p.setForm({ orders: toggle(f.orders, o.value, on) })}
                    testId={`order-${o.value}`}
                  />
                ))}
              </div>
              {e.orders ? (
                <div className="field-msg field-error" data-testid="validation-msg">
                  {e.orders}
                </div>
              ) : null}
            </fieldset>
            <fieldset className="field">
              <legend>Cache</legend>
              <div className="checks">
                <Check
                  label="OS page cache"
                  checked={f.caches.includes(true)}
                  onChange={(on) => p.setForm({ caches: toggle(f.caches, true, on) })}
                />
                <Check
                  label="Process cache"
                  checked={f.caches.includes(false)}
                  onChange={(on) => p.setForm({ caches: toggle(f.caches, false, on) })}
                />
              </div>
              {e.caches ? (
                <div className="field-msg field-error" data-testid="validation-msg">
                  {e.caches}
                </div>
              ) : null}
            </fieldset>
            <SelectField<DecoderKind>
              label="Decoder"
              value={f.decoder}
              onChange={(decoder) => p.setForm({ decoder })}
              options={[
                { value: 'rrc', label: 'Random resized crop' },
                { value: 'center', label: 'Center crop' },
                { value: 'simple', label: 'Simple (full image)' },
              ]}
              testId="profile-decoder"
            />
            <TextField
              label="Crop size (px)"
              value={f.decoderSize}
              onChange={(decoderSize) => p.setForm({ decoderSize })}
              error={e.decoderSize}
              disabled={f.decoder === 'simple'}
              inputMode="numeric"
            />
            <TextField
              label="Seconds per point"
              value={f.secondsPerPoint}
              onChange={(secondsPerPoint) => p.setForm({ secondsPerPoint })}
              error={e.secondsPerPoint}
              testId="profile-seconds"
              inputMode="decimal"
            />
            <TextField
              label="Warm-up batches"
              value={f.warmupBatches}
              onChange={(warmupBatches) => p.setForm({ warmupBatches })}
              error={e.warmupBatches}
              testId="profile-warmup"
              inputMode="numeric"
            />
            <TextField
              label="Batches ahead"
              value={f.batchesAhead}
              onChange={(batchesAhead) => p.setForm({ batchesAhead })}
              error={e.batchesAhead}
              testId="profile-batches-ahead"
              inputMode="numeric"
              placeholder="3 (the loader's default)"
              hint="Batches decoded ahead of the consumer; more smooths uneven supply."
            />
            <div className="align-end">
              <Check label="Random horizontal flip" checked={f.flip} onChange={(flip) => p.setForm({ flip })} />
            </div>
            <fieldset className="field span-2" data-testid="profile-engines">
              <legend>Engines</legend>
              <div className="checks">
                {ENGINES.map((en) => {
                  const st = p.engineStatus?.find((x) => x.engine === en.value);
                  const missing = st ? !st.available : en.value !== 'beton';
                  return (
                    <Check
                      key={en.value}
                      label={en.label}
                      checked={f.engines.includes(en.value)}
                      disabled={missing && !f.engines.includes(en.value)}
                      onChange={(on) => p.setForm({ engines: toggle(f.engines, en.value, on) })}
                      testId={`engine-${en.value}`}
                    />
                  );
                })}
              </div>
              {p.engineStatus
                ?.filter((x) => !x.available)
                .map((x) => (
                  <div key={x.engine} className="field-msg" data-testid={`engine-missing-${x.engine}`}>
                    {x.engine} is not available here: {x.reason}
                  </div>
                ))}
              {e.engines ? (
                <div className="field-msg field-error" data-testid="validation-msg">
                  {e.engines}
                </div>
              ) : null}
            </fieldset>
            {f.engines.includes('torch') ? (
              <div className="span-2">
                <PathPicker
                  label="Source folder (torch engine: the images the .beton was built from)"
                  value={f.source}
                  onChange={(source) => p.setForm({ source })}
                  pick="folder"
                  testId="profile-source"
                />
                {e.source ? (
                  <div className="field-msg field-error" data-testid="validation-msg">
                    {e.source}
                  </div>
                ) : null}
              </div>
            ) : null}
            {f.engines.includes('ffcv') ? (
              <div className="align-end">
                <Check
                  label="FFCV per-stage costs (ablation, slower)"
                  checked={f.stages}
                  onChange={(stages) => p.setForm({ stages })}
                  testId="profile-stages"
                />
              </div>
            ) : null}
          </div>
        ) : (
          <div className="grid-form">
            {execOff ? (
              <div className="span-2 banner banner-warn" role="note" id="exec-disabled-note" data-testid="exec-disabled">
                <div className="banner-text">
                  <strong>Training commands are off on this server.</strong>
                  <div className="banner-message">
                    Whoever holds this server's link could run any shell command as you, so it runs none unless told to. To profile a
                    training command, restart it with <code>beton serve --allow-exec</code>.
                  </div>
                </div>
              </div>
            ) : null}
            <TextField
              className="span-2"
              label="Training command"
              value={f.command}
              onChange={(command) => p.setForm({ command })}
              error={execOff ? undefined : e.command}
              testId="profile-command"
              placeholder="python train.py --epochs 1"
              spellCheck={false}
              disabled={execOff}
              {...(execOff ? { 'aria-describedby': 'exec-disabled-note' } : {})}
              hint='It should print JSON lines {"step": n, "images": k}, or give a pattern below.'
            />
            <TextField
              className="span-2"
              label="Throughput pattern (optional)"
              value={f.throughputRegex}
              onChange={(throughputRegex) => p.setForm({ throughputRegex })}
              error={e.throughputRegex}
              placeholder="images=(?<images>\d+)"
              spellCheck={false}
              disabled={execOff}
            />
            <div className="span-2">
              <PathPicker
                label="Dataset the command reads (optional .beton)"
                value={f.execFile}
                onChange={(execFile) => p.setForm({ execFile })}
                pick="file"
                accept={['beton']}
                testId="profile-exec-file"
              />
            </div>
          </div>
        )}
        <div className="actions">
          {startError ? <ErrorBanner error={startError} title="The profile did not start" /> : null}
          {checked.grid.length ? (
            <span className="muted">
              {checked.grid.length} {checked.grid.length === 1 ? 'point' : 'points'} to measure
            </span>
          ) : null}
          {running ? (
            <button
              type="button"
              className="btn btn-danger"
              data-testid="profile-cancel"
              onClick={() => void p.cancel()}
              disabled={p.job?.cancelling}
            >
              {p.job?.cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-primary btn-large"
            data-testid="profile-start"
            disabled={!checked.params || running || p.starting || (f.mode === 'exec' && execOff)}
            onClick={() => checked.params && void p.start(checked.params, checked.grid)}
          >
            {p.starting ? 'Starting…' : running ? 'Running…' : 'Start profiling'}
          </button>
        </div>
      </section>

      {job ? (
        <Live job={job} />
      ) : (
        <EmptyState title="No profile running">
          <p>
            A sweep runs the loader for a few seconds at each point of the grid and charts images/s, CPU per core and GPU use live; it ends
            with a verdict and what to try next.
          </p>
        </EmptyState>
      )}
    </div>
  );
}

function Live({ job }: { job: ProfileJob }) {
  const outcome = job.outcome;
  const finalPoints: PointResult[] = outcome?.kind === 'sweep' ? outcome.points : [];
  const live = useMemo(() => livePointRates(job.samples), [job.samples]);
  const byWorkers = useMemo(() => workersChart(finalPoints, job.grid, live), [finalPoints, job.grid, live]);
  const pct = job.progress ? percent(job.progress.done, job.progress.total) : null;
  const rate = rateText(job.status, job.mode, job.samples, finalPoints);
  return (
    <>
      <section className="card" data-testid="profile-status" data-status={job.status}>
        <div className="progress-head">
          <span className={`status status-${job.status}`}>
            {job.status === 'running'
              ? 'Measuring'
              : job.status === 'ok'
                ? 'Done'
                : job.status === 'cancelled'
                  ? 'Cancelled'
                  : job.status === 'unknown'
                    ? 'State unknown'
                    : 'Failed'}
          </span>
          <span className="muted" data-testid="profile-progress-text">
            {job.mode === 'grid'
              ? pointProgressText(job)
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

      {outcome?.kind === 'sweep' ? (
        <VerdictCard
          verdict={outcome.verdict}
          runId={outcome.runId}
          points={outcome.points}
          file={job.file ?? ''}
          plan={job.plan ?? null}
        />
      ) : null}
      {outcome?.kind === 'exec' ? (
        <section className="card" data-testid="exec-result" data-failed={String(outcome.failure !== null)}>
          <h3>{outcome.failure ? 'Command failed' : job.status === 'cancelled' ? 'Command stopped' : 'Command finished'}</h3>
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
      ) : null}

      {job.mode === 'grid' ? (
        <ChartCard
          title="Images/s vs workers"
          subtitle={finalPoints.length ? 'measured points' : 'live estimate'}
          testId="chart-points"
          count={byWorkers.rows.length}
          empty="Points appear as each grid cell is measured."
        >
          <Lines
            rows={byWorkers.rows}
            x="workers"
            lines={byWorkers.series.map((k) => ({ key: k }))}
            xLabel="workers"
            yLabel="images/s"
            dots
          />
        </ChartCard>
      ) : null}
      <ProfileCharts samples={job.samples} configs={job.grid} live running={job.status === 'running'} />
    </>
  );
}

const VERDICT_TONE: Record<string, string> = {
  'gpu-bound': 'good',
  balanced: 'good',
  'input-bound': 'warn',
  'decode-bound': 'warn',
  'disk-bound': 'warn',
  'compute-bound': 'good',
  'network-bound': 'warn',
  unknown: 'neutral',
};

function VerdictCard({
  verdict,
  runId,
  points,
  file,
  plan,
}: {
  verdict: Verdict | null;
  runId: number;
  points: PointResult[];
  file: string;
  plan: ProfileJob['plan'] | null;
}) {
  const setScreen = useUiStore((u) => u.setScreen);
  const toggleRun = useRunsStore((r) => r.toggle);
  const selected = useRunsStore((r) => r.selected);
  const setExport = useExportStore((s) => s.setForm);
  // The export is FFCV code: when FFCV was measured, its best point is the one to export (ours may differ).
  const ffcvPoints = points.filter((pt) => pt.config.engine === 'ffcv');
  const best = bestPoint(ffcvPoints.length ? ffcvPoints : points);
  const [decoderKind, decoderSize] = (plan?.decoder ?? 'rrc:160').split(':');
  return (
    <section className="card verdict" data-testid="verdict" data-kind={verdict?.kind ?? 'none'}>
      <header className="card-head">
        <h3>Verdict</h3>
        {verdict ? <span className={`badge badge-${VERDICT_TONE[verdict.kind] ?? 'neutral'}`}>{verdict.kind}</span> : null}
      </header>
      {verdict ? (
        <>
          <p className="verdict-summary" data-testid="verdict-summary">
            <InlineMarkdown text={verdict.summary} />
          </p>
          <div className="two-col">
            <div>
              <h4>Evidence</h4>
              <ul data-testid="verdict-evidence">
                {verdict.evidence.map((x, i) => (
                  <li key={i}>
                    <InlineMarkdown text={x} />
                  </li>
                ))}
              </ul>
            </div>
            <div>
              <h4>What to try</h4>
              <ul data-testid="verdict-advice">
                {verdict.advice.length ? (
                  verdict.advice.map((x, i) => (
                    <li key={i}>
                      <InlineMarkdown text={x} />
                    </li>
                  ))
                ) : (
                  <li className="muted">Nothing obvious: this setup is already balanced.</li>
                )}
              </ul>
            </div>
          </div>
        </>
      ) : (
        <p className="muted">No verdict: no point was measured.</p>
      )}
      <EngineSummary points={points} />
      {points.length ? <PointsTable points={points} /> : null}
      <div className="actions">
        <button
          type="button"
          className="btn"
          data-testid="view-run"
          onClick={() => {
            if (!selected.includes(runId)) toggleRun(runId);
            setScreen('runs');
          }}
        >
          View run {runId}
        </button>
        {best ? (
          <button
            type="button"
            className="btn"
            data-testid="export-best"
            onClick={() => {
              // Every setting exported is one that was measured: the point's, and the plan's decoder, flip and batches ahead.
              setExport({
                file,
                batchSize: String(best.config.batchSize),
                numWorkers: String(best.config.workers),
                order: best.config.order,
                osCache: best.config.osCache,
                batchesAhead: plan?.batchesAhead !== undefined ? String(plan.batchesAhead) : '',
                ...(plan
                  ? {
                      decoder: decoderKind as DecoderKind,
                      ...(decoderSize ? { size: decoderSize } : {}),
                      flip: plan.flip ?? true,
                      normalize: false,
                    }
                  : {}),
              });
              setScreen('export');
            }}
          >
            {ffcvPoints.length ? 'Export the best measured FFCV loader' : 'Export the best loader'}
          </button>
        ) : null}
        {best ? (
          <span className="muted" data-testid="export-best-note">
            {ffcvPoints.length
              ? `FFCV was measured: exports its best point (${pointLabel(best.config)}, ${formatRate(best.imagesPerSec, 'img')}).`
              : `Exports the best point (${pointLabel(best.config)}); FFCV's own speed was not measured (add the FFCV engine).`}
          </span>
        ) : null}
      </div>
    </section>
  );
}

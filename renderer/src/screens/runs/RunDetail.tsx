import { useMemo } from 'react';
import { AnswerCard } from '../../components/AnswerCard.js';
import { EngineFailures, firstLine } from '../../components/EngineFailures.js';
import { ExecSweepCharts } from '../../components/ExecSweepCharts.js';
import { EngineSummary, PointsTable } from '../../components/PointsTable.js';
import { ProfileCharts } from '../../components/ProfileCharts.js';
import { StepWaitChart } from '../../components/StepWaitChart.js';
import { ErrorBanner } from '../../components/States.js';
import { formatDateTime, rateUnit } from '../../lib/format.js';
import { runSettings, type SettingGroup } from '../../lib/run-settings.js';
import { answerOf, type PointConfig, type ProfileRunView } from '../../lib/types.js';
import { VerdictBody } from './VerdictBody.js';

const GROUPS: SettingGroup[] = ['Plan', 'Machine', 'Dataset'];

/** Grid configs by point index, from the measured points (a cancelled point has none: its span is named by number). */
const configsOf = (run: ProfileRunView): Array<PointConfig | undefined> => {
  const out: Array<PointConfig | undefined> = [];
  for (const p of run.points) out[p.index] = p.config;
  return out;
};

function SettingsTable({ settings }: { settings: ReturnType<typeof runSettings> }) {
  return (
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
  );
}

/** One run in full: every setting, the evidence behind its verdict, its timelines and its points. */
export function RunDetail({ run, onClose }: { run: ProfileRunView; onClose: () => void }) {
  const settings = useMemo(() => runSettings(run), [run]);
  const configs = useMemo(() => configsOf(run), [run]);
  const unit = rateUnit(run.dataset?.schema);
  const answer = answerOf(run);
  const plan = 'decoder' in run.plan ? run.plan : null;
  const file = run.dataset?.path ?? ('file' in run.plan && run.plan.file ? run.plan.file : '');
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
        <>
          <ErrorBanner error={{ code: run.failure.code ?? 'FAILED', message: firstLine(run.failure.message) }} title="The run failed" />
          {run.failure.message.includes('\n') ? (
            <details className="engine-failure" data-testid="run-failure-detail">
              <summary>Details</summary>
              <pre>{run.failure.message}</pre>
            </details>
          ) : null}
        </>
      ) : null}
      <EngineFailures failures={run.engineFailures} />
      {answer ? <AnswerCard answer={answer} unit={unit} ctx={{ file, plan, points: run.points }} testId="run-answer" /> : null}
      {answer ? (
        // The answer above says what the run found; its settings are one click away rather than a screen long.
        <details className="run-settings-disclosure" data-testid="run-settings-disclosure">
          <summary>
            <h4 style={{ display: 'inline' }}>Settings</h4> <span className="muted">(plan, machine, dataset: {settings.length} rows)</span>
          </summary>
          <SettingsTable settings={settings} />
        </details>
      ) : (
        <div className="two-col">
          <div>
            <h4>Settings</h4>
            <SettingsTable settings={settings} />
          </div>
          <div>
            <h4>Verdict</h4>
            <VerdictBody verdict={run.verdict} testId="run-verdict" exec={run.kind === 'exec'} />
          </div>
        </div>
      )}
      {/* One run of a command: its steps' wait; a sweep of it has a point per worker count instead (below). */}
      {run.kind === 'exec' && !run.points.length ? <StepWaitChart verdict={run.verdict} /> : null}
      {run.kind === 'exec' && run.points.length ? (
        <>
          <h4>Your command, swept over workers</h4>
          <ExecSweepCharts points={run.points} unit={unit} bestIndex={answer?.best.point ?? null} />
        </>
      ) : run.points.length ? (
        <>
          <h4>Grid points</h4>
          {answer ? null : <EngineSummary points={run.points} unit={unit} />}
          <PointsTable points={run.points} bestIndex={answer?.best.point ?? null} testId="run-points" unit={unit} />
        </>
      ) : null}
      <h4>Timelines</h4>
      <ProfileCharts samples={run.samples} configs={configs} rate={unit} points={run.points} />
    </section>
  );
}

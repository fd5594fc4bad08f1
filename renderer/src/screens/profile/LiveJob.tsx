import { useMemo } from 'react';
import { ChartCard, Lines } from '../../components/Charts.js';
import { answerBest } from '../../components/PointsTable.js';
import { ProfileCharts } from '../../components/ProfileCharts.js';
import { rateUnit } from '../../lib/format.js';
import { rateText } from '../../lib/run-rates.js';
import { liveBySettings, livePointRates, workersChart } from '../../lib/series.js';
import { pointLabel } from '../../lib/profile-form.js';
import { answerOf, type PointResult } from '../../lib/types.js';
import { shownJob, useProfilesStore } from '../../stores/profiles.js';
import { ExecResultCard } from './ExecResultCard.js';
import { JobStatusCard } from './JobStatusCard.js';
import { RunExtras } from './RunExtras.js';
import { VerdictCard } from './VerdictCard.js';

const NO_POINTS: PointResult[] = [];

/** The status line's best: the answer's number and its point's label, the same as the answer card's and the table's mark. */
function answerBestOf(answer: ReturnType<typeof answerOf>, points: readonly PointResult[]): { ips: number | null; label: string } | null {
  if (!answer) return null;
  const pt = answerBest(points, answer.best.point);
  return { ips: answer.best.images_per_sec, label: pt ? pointLabel(pt.config) : answer.engine === 'exec' ? 'your command' : answer.engine };
}

/** The job the screen shows (stores/profiles.ts shownJob), live: the one part that follows its telemetry. */
export function LiveJob() {
  const job = useProfilesStore(shownJob);
  const outcome = job?.outcome;
  const finalPoints = outcome?.kind === 'sweep' ? outcome.points : NO_POINTS;
  const samples = job?.samples;
  const grid = job?.grid;
  const live = useMemo(() => livePointRates(samples ?? []), [samples]);
  const byWorkers = useMemo(() => workersChart(finalPoints, liveBySettings(live, grid ?? [])), [finalPoints, grid, live]);
  const answer = answerOf(outcome);
  if (!job) return null;
  // A video dataset's samples are clips: its rates are clips/s, not images/s.
  const unit = rateUnit(job.schema);
  const title = `${unit[0]!.toUpperCase()}${unit.slice(1)} vs workers`;
  return (
    <>
      <JobStatusCard job={job} rate={rateText(job.status, job.mode, job.samples, finalPoints, unit, answerBestOf(answer, finalPoints))} />
      {outcome?.kind === 'sweep' ? (
        <VerdictCard
          verdict={outcome.verdict}
          answer={answer}
          runId={outcome.runId}
          points={outcome.points}
          file={job.file ?? ''}
          plan={job.plan ?? null}
          unit={unit}
        />
      ) : null}
      {outcome?.kind === 'exec' ? <ExecResultCard outcome={outcome} status={job.status} /> : null}
      {outcome ? <RunExtras runId={outcome.runId} answer={answer} exec={outcome.kind === 'exec'} unit={unit} /> : null}
      {job.mode === 'grid' ? (
        <ChartCard
          title={title}
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
            yLabel={unit}
            xTicks={byWorkers.rows.map((r) => r.workers)}
            dots
            connectNulls
          />
        </ChartCard>
      ) : null}
      <ProfileCharts samples={job.samples} configs={job.grid} live running={job.status === 'running'} rate={unit} points={finalPoints} />
    </>
  );
}

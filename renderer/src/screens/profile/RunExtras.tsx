import { useEffect, useState } from 'react';
import { AnswerCard } from '../../components/AnswerCard.js';
import { EngineFailures } from '../../components/EngineFailures.js';
import { ExecSweepCharts } from '../../components/ExecSweepCharts.js';
import { call } from '../../lib/api.js';
import type { ProfileAnswer, ProfileRunView } from '../../lib/types.js';

/**
 * What a finished job's outcome does not carry but its stored run does: the engines that failed
 * (one line each, the traceback behind a disclosure) and, for a training command swept over
 * workers, its points (throughput and GPU versus workers, each point's wait share) with the
 * answer. Read once from the runs database when the job ends.
 */
export function RunExtras({ runId, answer, exec, unit }: { runId: number; answer: ProfileAnswer | null; exec: boolean; unit: string }) {
  const [run, setRun] = useState<ProfileRunView | null>(null);
  useEffect(() => {
    let live = true;
    call('runs.get', { id: runId })
      .then((r) => live && setRun(r))
      .catch(() => undefined); // the Runs screen says why a run cannot be read
    return () => {
      live = false;
    };
  }, [runId]);
  if (!run) return null;
  const file = run.dataset?.path ?? ('file' in run.plan && run.plan.file ? run.plan.file : '');
  return (
    <>
      <EngineFailures failures={run.engineFailures} />
      {exec && (answer || run.points.length) ? (
        <section className="card" data-testid="exec-sweep-card">
          <header className="card-head">
            <h3>{run.points.length ? 'Your command, swept over workers' : 'Answer'}</h3>
          </header>
          {answer ? <AnswerCard answer={answer} unit={unit} ctx={{ file, plan: null, points: run.points }} /> : null}
          {run.points.length ? <ExecSweepCharts points={run.points} unit={unit} bestIndex={answer?.best.point ?? null} /> : null}
        </section>
      ) : null}
    </>
  );
}

import { AnswerCard, useAnswerAction } from '../../components/AnswerCard.js';
import { InlineMarkdown } from '../../components/InlineMarkdown.js';
import { answerBest, EngineSummary, PointsTable } from '../../components/PointsTable.js';
import type { PointResult, ProfileAnswer, Verdict } from '../../lib/types.js';
import type { ProfileJob } from '../../stores/profiles.js';
import { useRunsStore } from '../../stores/runs.js';
import { useUiStore } from '../../stores/ui.js';
import { VERDICT_TONE } from './verdict-tone.js';

/**
 * A finished sweep: its answer (what limits it, the best point, the noise, the engines, the
 * actions as buttons), the points with the answer's best marked, and the way to the run. A
 * host without answers (older) shows its verdict, and no point is called best.
 */
export function VerdictCard({
  verdict,
  answer,
  runId,
  points,
  file,
  plan,
  unit,
}: {
  verdict: Verdict | null;
  answer: ProfileAnswer | null;
  runId: number;
  points: PointResult[];
  file: string;
  plan: ProfileJob['plan'] | null;
  /** What the rates count (lib/format.ts rateUnit). */
  unit: string;
}) {
  const setScreen = useUiStore((u) => u.setScreen);
  const toggleRun = useRunsStore((r) => r.toggle);
  const selected = useRunsStore((r) => r.selected);
  const kind = answer?.bottleneck ?? verdict?.kind ?? 'none';
  const act = useAnswerAction({ file, plan: plan ?? null, points }, answer?.best.point ?? null);
  return (
    <section className="card verdict" data-testid="verdict" data-kind={verdict?.kind ?? 'none'} data-bottleneck={kind}>
      <header className="card-head">
        <h3>{answer ? 'Answer' : 'Verdict'}</h3>
        {!answer && verdict ? <span className={`badge badge-${VERDICT_TONE[verdict.kind] ?? 'neutral'}`}>{verdict.kind}</span> : null}
      </header>
      {answer ? (
        <AnswerCard answer={answer} unit={unit} ctx={{ file, plan: plan ?? null, points }} />
      ) : verdict ? (
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
      {answer ? null : <EngineSummary points={points} unit={unit} />}
      {points.length ? <PointsTable points={points} bestIndex={answer?.best.point ?? null} unit={unit} /> : null}
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
        {/* The answer's own export action when it has one; else (a balanced run) the same for answer.best's point. */}
        {answer && !answer.actions.some((a) => a.id === 'export') && answerBest(points, answer.best.point) ? (
          <button
            type="button"
            className="btn"
            data-testid="export-best"
            onClick={() => void act({ id: 'export', label: 'Export the best point', params: { point: answer.best.point } })}
          >
            Export FFCV code for the best point
          </button>
        ) : null}
      </div>
    </section>
  );
}

import { InlineMarkdown } from '../../components/InlineMarkdown.js';
import { bestPoint, EngineSummary, PointsTable } from '../../components/PointsTable.js';
import { formatRate } from '../../lib/format.js';
import { rateNoun } from '../../lib/run-rates.js';
import { pointLabel, type DecoderKind } from '../../lib/profile-form.js';
import type { PointResult, Verdict } from '../../lib/types.js';
import { useExportStore } from '../../stores/export.js';
import type { ProfileJob } from '../../stores/profiles.js';
import { useRunsStore } from '../../stores/runs.js';
import { useUiStore } from '../../stores/ui.js';
import { VERDICT_TONE } from './verdict-tone.js';

/** A finished sweep: the verdict with its evidence and advice, the points, and the way on (the run, the best loader's export). */
export function VerdictCard({
  verdict,
  runId,
  points,
  file,
  plan,
  unit,
}: {
  verdict: Verdict | null;
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
      <EngineSummary points={points} unit={unit} />
      {points.length ? <PointsTable points={points} unit={unit} /> : null}
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
              ? `FFCV was measured: exports its best point (${pointLabel(best.config)}, ${formatRate(best.imagesPerSec, rateNoun(unit))}).`
              : `Exports the best point (${pointLabel(best.config)}); FFCV's own speed was not measured (add the FFCV engine).`}
          </span>
        ) : null}
      </div>
    </section>
  );
}

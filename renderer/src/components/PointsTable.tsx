import { formatCompact, formatPercent } from '../lib/format.js';
import { shareText } from '../lib/share.js';
import { msText, stageColor, stageNames } from '../lib/stage-colors.js';
import { pointLabel } from '../lib/profile-form.js';
import { rateNoun } from '../lib/run-rates.js';
import type { PointResult } from '../lib/types.js';

/**
 * The point the answer calls best (answer.best.point: the point's grid index, PointResult.index,
 * which is not its position in the list when a point was not measured); null when it names
 * none. No second "best" is computed in the renderer: the walk found three that disagreed.
 */
export const answerBest = <P extends { index: number }>(points: readonly P[], point: number | null | undefined): P | null =>
  point === null || point === undefined ? null : (points.find((p) => p.index === point) ?? null);

/** (max − min) / median of a point's slices, or null. */
export function spreadOf(slices: readonly number[] | undefined): number | null {
  if (!slices || slices.length < 2) return null;
  const s = [...slices].sort((a, b) => a - b);
  const med = s[Math.floor((s.length - 1) / 2 + 0.5)]!;
  return med > 0 ? (s[s.length - 1]! - s[0]!) / med : null;
}

/** Where a point's time per image goes, stage by stage, on a scale shared by every point of the table, each stage's ms written on it. */
export function StageBar({ point, scaleMs }: { point: PointResult; scaleMs: number }) {
  const st = point.stages;
  if (!st?.stages.length) return <span className="muted">—</span>;
  const total = st.stages.reduce((a, s) => a + s.msPerImage, 0);
  const how = st.method === 'timers' ? 'timed in our workers' : "FFCV's pipeline-prefix ablation";
  const title = `${st.stages.map((s) => `${s.stage} ${msText(s.msPerImage)} ms`).join(' · ')} per image (${how})`;
  const width = Math.max(2, (total / Math.max(scaleMs, 1e-9)) * 100);
  return (
    <div className="stage-row" data-testid="stage-bar-row">
      <div
        className="stage-bar"
        data-testid="stage-bar"
        data-method={st.method}
        title={title}
        aria-label={title}
        style={{ width: `${width * 0.78}%` }}
      >
        {st.stages.map((s) => (
          <span
            key={s.stage}
            data-stage={s.stage}
            data-color={stageColor(s.stage)}
            className="stage-seg"
            // Grow factors in percent: factors summing under 1 would fill only that fraction of the bar.
            style={{ flex: `${total > 0 ? (Math.max(s.msPerImage, 0) / total) * 100 : 0} 0 0`, background: stageColor(s.stage) }}
          >
            {/* The number on the segment when it has room; the total and the tooltip carry the rest. */}
            {total > 0 && s.msPerImage / total >= 0.22 ? msText(s.msPerImage) : ''}
          </span>
        ))}
      </div>
      <span className="stage-total" data-testid="stage-total">
        {msText(total)} ms
      </span>
    </div>
  );
}

/** One legend for every stage bar on the screen: a colour per stage name, whichever engine measured it. */
export function StageLegend({ points }: { points: readonly PointResult[] }) {
  const names = stageNames(points);
  if (!names.length) return null;
  const methods = new Set(points.map((p) => p.stages?.method).filter(Boolean));
  return (
    <div className="stage-legend" data-testid="stage-legend">
      <span className="muted">Stages, ms of worker time per image:</span>
      {names.map((n) => (
        <span key={n} className="stage-key" data-stage={n} data-color={stageColor(n)}>
          <i style={{ background: stageColor(n) }} aria-hidden="true" />
          {n}
        </span>
      ))}
      <span className="muted">
        {methods.has('timers') ? 'ours: timed in the workers' : ''}
        {methods.size > 1 ? ' · ' : ''}
        {methods.has('ablation') ? 'FFCV: by ablation (pipeline prefixes)' : ''}
      </span>
    </div>
  );
}

/** A sweep's measured grid points, the best one marked. */
/** `unit`: what the rate counts (lib/format.ts rateUnit: images/s, clips/s for a video dataset). */
export function PointsTable({
  points,
  bestIndex,
  testId = 'points-table',
  unit = 'images/s',
}: {
  points: readonly PointResult[];
  /** The answer's best point (answer.best.point, a PointResult.index), marked; null: none marked. */
  bestIndex: number | null;
  testId?: string;
  unit?: string;
}) {
  const best = answerBest(points, bestIndex);
  const scaleMs = Math.max(0, ...points.map((p) => (p.stages?.stages ?? []).reduce((a, s) => a + s.msPerImage, 0)));
  const anyStages = scaleMs > 0;
  return (
    <div className="table-scroll">
      {anyStages ? <StageLegend points={points} /> : null}
      <table className="table compact" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Point</th>
            <th scope="col">{unit}</th>
            <th scope="col">batches/s</th>
            <th scope="col">wait p50 / p95</th>
            <th scope="col">spread</th>
            <th scope="col">CPU loader / all</th>
            <th scope="col">GPU</th>
            {anyStages ? <th scope="col">stages (ms/image)</th> : null}
          </tr>
        </thead>
        <tbody>
          {points.map((pt) => (
            <tr key={pt.index} className={pt === best ? 'is-best' : ''} data-best={pt === best ? 'true' : undefined}>
              <th scope="row">
                {pointLabel(pt.config)}
                {pt === best ? <span className="best-tag"> · best</span> : null}
              </th>
              <td className="num">{formatCompact(pt.imagesPerSec)}</td>
              <td className="num">{pt.batchesPerSec.toFixed(1)}</td>
              <td className="num">
                {pt.waitP50Ms.toFixed(1)} / {pt.waitP95Ms.toFixed(1)} ms
              </td>
              <td className="num" data-testid="point-spread">
                {spreadOf(pt.slices) === null ? '—' : formatPercent(spreadOf(pt.slices)! * 100)}
              </td>
              <td className="num" title={pt.loaderCpu != null ? (shareText(pt.loaderCpu).note ?? undefined) : undefined}>
                {pt.loaderCpu != null ? `${shareText(pt.loaderCpu).text} / ` : ''}
                {pt.cpuPerCore.length ? shareText(pt.cpuPerCore.reduce((a, b) => a + b, 0) / pt.cpuPerCore.length).text : '—'}
              </td>
              {/* A sweep drives no GPU: a reading is someone else's work. */}
              <td className="num">{pt.gpuUtilMean === null ? '—' : `${formatPercent(pt.gpuUtilMean)} · not used by this sweep`}</td>
              {anyStages ? (
                <td style={{ minWidth: 200 }}>
                  <StageBar point={pt} scaleMs={scaleMs} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Best point of each engine, and each against ours (or the first engine measured): how the engines compare on this file. */
export function EngineSummary({ points, unit = 'images/s' }: { points: readonly PointResult[]; unit?: string }) {
  const bestOf = new Map<string, PointResult>();
  for (const p of points) {
    const e = p.config.engine ?? 'beton';
    const b = bestOf.get(e);
    if (p.images > 0 && (!b || p.imagesPerSec > b.imagesPerSec)) bestOf.set(e, p);
  }
  if (bestOf.size < 2) return null;
  const refName = bestOf.has('beton') ? 'beton' : [...bestOf.keys()][0]!;
  const ref = bestOf.get(refName)!;
  return (
    <ul className="engine-summary" data-testid="engine-summary">
      {[...bestOf].map(([e, p]) => (
        <li key={e} data-engine={e}>
          <strong>{e}</strong>: {formatCompact(p.imagesPerSec)} {rateNoun(unit)}/s at {pointLabel(p.config)}
          {e === refName ? '' : ` — ${(p.imagesPerSec / Math.max(ref.imagesPerSec, 1e-9)).toFixed(2)}× ${refName}`}
        </li>
      ))}
    </ul>
  );
}

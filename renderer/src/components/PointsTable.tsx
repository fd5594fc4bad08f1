import { formatCompact, formatPercent } from '../lib/format.js';
import { pointLabel } from '../lib/profile-form.js';
import { rateNoun } from '../lib/run-rates.js';
import type { PointResult } from '../lib/types.js';

/** The best point by images/s, or null. */
export const bestPoint = (points: readonly PointResult[]): PointResult | null =>
  points.reduce<PointResult | null>((b, p) => (!b || p.imagesPerSec > b.imagesPerSec ? p : b), null);

/** (max − min) / median of a point's slices, or null. */
export function spreadOf(slices: readonly number[] | undefined): number | null {
  if (!slices || slices.length < 2) return null;
  const s = [...slices].sort((a, b) => a - b);
  const med = s[Math.floor((s.length - 1) / 2 + 0.5)]!;
  return med > 0 ? (s[s.length - 1]! - s[0]!) / med : null;
}

const STAGE_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1'];

/** Where a point's time per image goes, stage by stage, on a scale shared by every point of the table. */
export function StageBar({ point, scaleMs }: { point: PointResult; scaleMs: number }) {
  const st = point.stages;
  if (!st?.stages.length) return <span className="muted">—</span>;
  const total = st.stages.reduce((a, s) => a + s.msPerImage, 0);
  const title = `${st.stages.map((s) => `${s.stage} ${s.msPerImage.toFixed(2)} ms`).join(' · ')} per image (${st.method === 'timers' ? 'timed in our workers' : 'FFCV pipeline-prefix ablation'})`;
  return (
    <div
      className="stage-bar"
      data-testid="stage-bar"
      data-method={st.method}
      title={title}
      aria-label={title}
      style={{ display: 'flex', height: 10, width: `${Math.max(2, (total / Math.max(scaleMs, 1e-9)) * 100)}%`, minWidth: 4 }}
    >
      {st.stages.map((s, i) => (
        <span
          key={s.stage}
          data-stage={s.stage}
          style={{ flex: `${Math.max(s.msPerImage, 0)} 0 0`, background: STAGE_COLORS[i % STAGE_COLORS.length] }}
        />
      ))}
    </div>
  );
}

/** A sweep's measured grid points, the best one marked. */
/** `unit`: what the rate counts (lib/format.ts rateUnit: images/s, clips/s for a video dataset). */
export function PointsTable({
  points,
  testId = 'points-table',
  unit = 'images/s',
}: {
  points: readonly PointResult[];
  testId?: string;
  unit?: string;
}) {
  const best = bestPoint(points);
  const scaleMs = Math.max(0, ...points.map((p) => (p.stages?.stages ?? []).reduce((a, s) => a + s.msPerImage, 0)));
  const anyStages = scaleMs > 0;
  return (
    <div className="table-scroll">
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
            <tr key={pt.index} className={pt === best ? 'is-best' : ''}>
              <th scope="row">{pointLabel(pt.config)}</th>
              <td className="num">{formatCompact(pt.imagesPerSec)}</td>
              <td className="num">{pt.batchesPerSec.toFixed(1)}</td>
              <td className="num">
                {pt.waitP50Ms.toFixed(1)} / {pt.waitP95Ms.toFixed(1)} ms
              </td>
              <td className="num" data-testid="point-spread">
                {spreadOf(pt.slices) === null ? '—' : formatPercent(spreadOf(pt.slices)! * 100)}
              </td>
              <td className="num">
                {pt.loaderCpu != null ? `${formatPercent(pt.loaderCpu * 100)} / ` : ''}
                {pt.cpuPerCore.length ? formatPercent((pt.cpuPerCore.reduce((a, b) => a + b, 0) / pt.cpuPerCore.length) * 100) : '—'}
              </td>
              {/* A sweep drives no GPU: a reading is someone else's work. */}
              <td className="num">{pt.gpuUtilMean === null ? '—' : `${formatPercent(pt.gpuUtilMean)} · not used by this sweep`}</td>
              {anyStages ? (
                <td style={{ minWidth: 160 }}>
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

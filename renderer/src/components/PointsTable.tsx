import { formatCompact, formatPercent } from '../lib/format.js';
import { pointLabel } from '../lib/profile-form.js';
import type { PointResult } from '../lib/types.js';

/** The best point by images/s, or null. */
export const bestPoint = (points: readonly PointResult[]): PointResult | null =>
  points.reduce<PointResult | null>((b, p) => (!b || p.imagesPerSec > b.imagesPerSec ? p : b), null);

/** A sweep's measured grid points, the best one marked. */
export function PointsTable({ points, testId = 'points-table' }: { points: readonly PointResult[]; testId?: string }) {
  const best = bestPoint(points);
  return (
    <div className="table-scroll">
      <table className="table compact" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Point</th>
            <th scope="col">images/s</th>
            <th scope="col">batches/s</th>
            <th scope="col">wait p50 / p95</th>
            <th scope="col">CPU mean</th>
            <th scope="col">GPU mean</th>
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
              <td className="num">
                {pt.cpuPerCore.length ? formatPercent((pt.cpuPerCore.reduce((a, b) => a + b, 0) / pt.cpuPerCore.length) * 100) : '—'}
              </td>
              <td className="num">{pt.gpuUtilMean === null ? '—' : formatPercent(pt.gpuUtilMean)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

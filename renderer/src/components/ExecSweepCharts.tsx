import { useMemo } from 'react';
import { formatCompact } from '../lib/format.js';
import { shareText } from '../lib/share.js';
import { ChartCard, Lines } from './Charts.js';

/** What a training-command sweep's point carries that these charts read (PointResult with its `exec` measures). */
export interface ExecSweepPoint {
  index: number;
  config: { workers: number; batchSize: number };
  imagesPerSec: number;
  gpuUtilMean: number | null;
  exec?: { waitShare: number | null; command: string; failure: string | null } | undefined;
}

/** The wait share below which the GPU counts as not waiting for data (the answer's rule: the fewest workers under it). */
export const KEEPS_UP_SHARE = 0.05;

const pct = (v: number): string => `${Math.round(v)}%`;

/**
 * A training command swept over worker counts: its throughput and the GPU's utilisation versus
 * workers (one line per batch size), and each point's wait share — where the GPU stops waiting.
 */
export function ExecSweepCharts({
  points,
  unit = 'images/s',
  bestIndex,
}: {
  points: readonly ExecSweepPoint[];
  unit?: string;
  bestIndex: number | null;
}) {
  const { rows, sizes } = useMemo(() => {
    const sizes = [...new Set(points.map((p) => p.config.batchSize))].sort((a, b) => a - b);
    const byW = new Map<number, Record<string, number | null>>();
    for (const p of points) {
      const r = byW.get(p.config.workers) ?? { workers: p.config.workers };
      const failed = !!p.exec?.failure;
      r[`ips ${p.config.batchSize}`] = failed ? null : Math.round(p.imagesPerSec);
      r[`gpu ${p.config.batchSize}`] = failed || p.gpuUtilMean === null ? null : Math.round(p.gpuUtilMean);
      byW.set(p.config.workers, r);
    }
    return { rows: [...byW.values()].sort((a, b) => (a.workers ?? 0) - (b.workers ?? 0)), sizes };
  }, [points]);
  const many = sizes.length > 1;
  // The worker counts measured: a tick at 1.5 workers would be a setting nobody can run.
  const workerTicks = rows.map((r) => r.workers ?? 0);
  const haveGpu = points.some((p) => p.gpuUtilMean !== null);
  return (
    <div data-testid="exec-sweep">
      <div className="chart-grid">
        <ChartCard
          title={`Throughput vs workers`}
          subtitle={`${unit} of your command at each worker count${many ? ' · one line per batch size' : ''}`}
          testId="exec-sweep-throughput"
          count={rows.length}
          empty="No point of the sweep reported images."
        >
          <Lines
            rows={rows}
            x="workers"
            lines={sizes.map((b) => ({ key: `ips ${b}`, name: many ? `batch ${b}` : unit }))}
            xLabel="workers"
            yLabel={unit}
            unit={unit}
            xTicks={workerTicks}
            dots
          />
        </ChartCard>
        <ChartCard
          title="GPU utilisation vs workers"
          subtitle="mean over each run of the command (nvidia-smi)"
          testId="exec-sweep-gpu"
          count={haveGpu ? rows.length : 0}
          empty="No GPU readings: no nvidia-smi on the machine that ran it."
        >
          <Lines
            rows={rows}
            x="workers"
            lines={sizes.map((b) => ({ key: `gpu ${b}`, name: many ? `batch ${b}` : 'GPU busy' }))}
            xLabel="workers"
            yLabel="GPU busy (%)"
            yFormat={pct}
            yDomain={[0, 100]}
            xTicks={workerTicks}
            dots
          />
        </ChartCard>
      </div>
      <div className="table-scroll">
        <table className="table compact" data-testid="exec-sweep-points">
          <thead>
            <tr>
              <th scope="col">Workers</th>
              <th scope="col">Batch</th>
              <th scope="col">{unit}</th>
              <th scope="col">GPU</th>
              <th scope="col">waits for data</th>
              <th scope="col">Command</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => {
              const share = p.exec?.waitShare ?? null;
              const s = share === null ? null : shareText(share);
              return (
                <tr key={p.index} className={p.index === bestIndex ? 'is-best' : ''} data-testid="exec-sweep-point">
                  <th scope="row">
                    {p.config.workers}
                    {p.index === bestIndex ? <span className="best-tag"> · best</span> : null}
                  </th>
                  <td className="num">{p.config.batchSize}</td>
                  <td className="num">{p.exec?.failure ? 'failed' : formatCompact(p.imagesPerSec)}</td>
                  <td className="num">{p.gpuUtilMean === null ? '—' : pct(p.gpuUtilMean)}</td>
                  <td className="num" data-testid="exec-sweep-wait" title={s?.note ?? undefined}>
                    {s === null ? '—' : `${s.text}${share! < KEEPS_UP_SHARE ? ' · keeps up' : ''}`}
                  </td>
                  <td>
                    <code className="cell-command" title={p.exec?.failure ?? undefined}>
                      {p.exec?.command ?? '—'}
                    </code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

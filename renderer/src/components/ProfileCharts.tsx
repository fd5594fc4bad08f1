import { useMemo } from 'react';
import { cpuBars, gpuIndices, hasReading, pointSpans, timelineRows } from '../lib/series.js';
import type { PointConfig, PointResult, TelemetrySample } from '../lib/types.js';
import { Bars, ChartCard, FULL_SPAN_LABELS, Lines, type XSpan } from './Charts.js';

/** A grid point's name on a timeline: short, since a span can be narrow (the tooltip and tables carry the rest). */
export const spanLabel = (c: PointConfig | undefined, index: number): string =>
  c
    ? `${c.engine && c.engine !== 'beton' ? `${c.engine} ` : ''}${c.workers}w · bs ${c.batchSize}${c.osCache ? '' : ' · proc'}`
    : `point ${index + 1}`;

/** A span's name when there are too many for full names: its point's number, as in the points table. */
const spanShort = (index: number): string => `#${index + 1}`;

const pct = (v: number): string => `${Math.round(v)}%`;
const ms = (v: number): string => (v >= 10 ? `${Math.round(v)}` : v.toFixed(1));

/**
 * The timeline charts of a profile, live or stored: throughput, the loader's wait per step,
 * the loading process's CPU next to the machine's, GPU utilisation, and CPU per core. Each
 * timeline shades the stretch of every grid point and names it, so a dip reads as "the
 * point with 1 worker" rather than "second 12".
 */
export function ProfileCharts({
  samples,
  configs,
  live = false,
  running = false,
  rate = 'images/s',
  points = [],
}: {
  samples: readonly TelemetrySample[];
  /** The measured points: each one's median wait per step is drawn over its stretch (every engine reports it, not only ours). */
  points?: ReadonlyArray<Pick<PointResult, 'index' | 'waitP50Ms'>>;
  configs: ReadonlyArray<PointConfig | undefined>;
  live?: boolean;
  running?: boolean;
  /** The throughput's unit: images/s, clips/s for a video dataset (lib/format.ts rateUnit). */
  rate?: string;
}) {
  const timeline = useMemo(() => timelineRows(samples, points), [samples, points]);
  const spans: XSpan[] = useMemo(
    () => pointSpans(samples).map((s) => ({ x1: s.x1, x2: s.x2, label: spanLabel(configs[s.point], s.point), short: spanShort(s.point) })),
    [samples, configs],
  );
  const gpus = useMemo(() => gpuIndices(samples), [samples]);
  const cpu = useMemo(() => cpuBars(samples, !running), [samples, running]);
  const haveWait = hasReading(samples, 'waitMsPerStep');
  const havePointWait = timeline.some((r) => r.pointWait !== null);
  const haveProc = hasReading(samples, 'processCpu');
  const waiting = live && running ? 'Waiting for the first measurement…' : null;
  return (
    <div className="chart-grid" data-testid="profile-charts">
      <ChartCard
        title="Throughput"
        subtitle={`${rate} over time · shaded: grid points${spans.length > FULL_SPAN_LABELS ? ' (#N: point N)' : ''}`}
        testId="chart-timeline"
        count={timeline.filter((r) => r.ips !== null).length}
        empty={waiting ?? 'No throughput was recorded.'}
      >
        <Lines
          rows={timeline}
          x="t"
          lines={[{ key: 'ips', name: rate }]}
          xLabel="time (s)"
          yLabel={rate}
          unit={rate}
          xUnit="s"
          spans={spans}
        />
      </ChartCard>
      <ChartCard
        title="Loader wait per step"
        subtitle={
          havePointWait
            ? "how long the consumer waited for each batch · dashed: each point's median, for every engine"
            : 'how long the consumer waited for each batch'
        }
        testId="chart-wait"
        count={haveWait || havePointWait ? timeline.filter((r) => r.wait !== null || r.pointWait !== null).length : 0}
        empty={waiting ?? 'No wait readings: a training command is sampled from outside, and runs recorded before this chart have none.'}
      >
        <Lines
          rows={timeline}
          x="t"
          lines={[
            ...(haveWait ? [{ key: 'wait', name: 'readings (our loader)' }] : []),
            ...(havePointWait ? [{ key: 'pointWait', name: 'point median (every engine)', dashed: true }] : []),
          ]}
          xLabel="time (s)"
          yLabel="wait per step (ms)"
          yFormat={ms}
          unit="ms"
          xUnit="s"
          spans={spans}
        />
      </ChartCard>
      <ChartCard
        title="CPU: loader process and machine"
        subtitle="% of all logical CPUs"
        testId="chart-process-cpu"
        count={timeline.length}
        empty={waiting ?? 'No CPU readings.'}
      >
        <Lines
          rows={timeline}
          x="t"
          lines={[
            { key: 'cpu', name: 'machine (all processes)' },
            ...(haveProc ? [{ key: 'proc', name: 'loader process', dashed: true }] : []),
          ]}
          xLabel="time (s)"
          yLabel="CPU busy (%)"
          yFormat={pct}
          xUnit="s"
          yDomain={[0, 100]}
          spans={spans}
        />
      </ChartCard>
      <ChartCard
        title="GPU utilisation"
        subtitle={gpus.length ? `${gpus.length} GPU${gpus.length > 1 ? 's' : ''} · nvidia-smi` : undefined}
        testId="chart-gpu"
        count={gpus.length ? timeline.length : 0}
        empty={
          !samples.length
            ? live
              ? 'Waiting for readings…'
              : 'No readings were recorded in this run.'
            : live
              ? 'No GPU on this machine (nvidia-smi not found): CPU-side loading only.'
              : 'No GPU readings in this run (no nvidia-smi on its machine).'
        }
      >
        <Lines
          rows={timeline}
          x="t"
          lines={gpus.map((g) => ({ key: `gpu${g}`, name: `GPU ${g}` }))}
          xLabel="time (s)"
          yLabel="GPU busy (%)"
          yFormat={pct}
          xUnit="s"
          yDomain={[0, 100]}
          spans={spans}
        />
      </ChartCard>
      <ChartCard
        title="CPU per core"
        subtitle={running ? 'now' : 'mean over the run'}
        testId="chart-cpu"
        count={cpu.length}
        empty={waiting ?? 'No CPU readings.'}
      >
        <Bars rows={cpu} x="core" y="busy" yFormat={pct} yDomain={[0, 100]} xLabel="logical CPU" yLabel="busy (%)" />
      </ChartCard>
    </div>
  );
}

import { ChartCard, Lines } from '../../components/Charts.js';
import { formatNumber, formatRate } from '../../lib/format.js';
import type { BuildJob } from '../../stores/builds.js';

/** A build's samples/s over the last second, over time. */
export function ThroughputChart({ history }: { history: BuildJob['history'] }) {
  // One or two points draw a dot or ticks "1 1 1": a short build's rate is a number.
  if (history.length > 0 && history.length < 3) {
    const last = history[history.length - 1]!;
    return (
      <section className="card chart-card" data-testid="throughput-chart" data-count={history.length} aria-label="Throughput">
        <header className="card-head">
          <h3>Throughput</h3>
          <span className="card-sub">too short a build for a chart</span>
        </header>
        <p className="big-number" data-testid="throughput-number">
          {formatRate(last.rate)} <span className="muted">at {formatNumber(last.t, 1)} s</span>
        </p>
      </section>
    );
  }
  return (
    <ChartCard
      title="Throughput"
      subtitle="samples/s over the last second, over time"
      testId="throughput-chart"
      count={history.length}
      empty="The chart starts with the second progress report (the first is the baseline)."
    >
      <Lines
        rows={history}
        x="t"
        lines={[{ key: 'rate', name: 'samples/s' }]}
        xLabel="seconds"
        xFormat={(v) => `${Math.round(v)}`}
        unit="samples/s"
        xUnit="s"
      />
    </ChartCard>
  );
}

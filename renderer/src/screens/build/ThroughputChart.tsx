import { ChartCard, Lines } from '../../components/Charts.js';
import type { BuildJob } from '../../stores/builds.js';

/** A build's samples/s over the last second, over time. */
export function ThroughputChart({ history }: { history: BuildJob['history'] }) {
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

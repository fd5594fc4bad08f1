import { ChartCard, Lines } from './Charts.js';
import { shareText } from '../lib/share.js';
import type { Verdict } from '../lib/types.js';

const ms = (v: number): string => `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ms`;

/**
 * An exec run's steps as the probe timed them: the wait for data and the whole step, per
 * stretch of steps (the run's verdict keeps at most a few hundred). The gap between the two
 * lines is the step's own work; a wait line near the step line is an input-bound step.
 */
export function StepWaitChart({ verdict }: { verdict: Verdict | null }) {
  const m = verdict?.exec;
  const rows = m?.series ?? [];
  const share = m?.waitShare;
  return (
    <ChartCard
      title="Wait for data per step"
      subtitle={
        share != null
          ? `waiting ${shareText(share).text} of the step time${share > 1 ? ' (capped: the wait and the step are timed at slightly different instants)' : ''} · p50 wait ${ms(m!.waitP50Ms ?? 0)} of a ${ms(m!.stepP50Ms ?? 0)} step · ${m!.stepsPerSec?.toFixed(1) ?? '?'} steps/s`
          : undefined
      }
      testId="step-wait-chart"
      count={rows.length}
      empty="No step timing: the command did not use the probe (wrap its loader in beton_probe.watch to see how long each step waits for data)."
    >
      <Lines
        rows={rows}
        x="step"
        xLabel="step"
        yLabel="ms"
        yFormat={ms}
        lines={[
          { key: 'waitMs', name: 'wait for data' },
          { key: 'stepMs', name: 'whole step', dashed: true },
        ]}
      />
    </ChartCard>
  );
}

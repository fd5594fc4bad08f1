// The probe's step lines → an exec run's measures (issue 18 item 2), and the exec verdict's bands.
import { describe, expect, it } from 'vitest';
import { jsonObjectOf, stepOf } from '../../core/profile/exec/exec-protocol.js';
import { diagnoseExec, EXEC_THRESHOLDS } from '../../core/profile/verdict/exec-verdict.js';
import { SERIES_MAX, StepStats } from '../../core/profile/exec/step-stats.js';
import type { MachineInfo } from '../../core/api/profile-model.js';

const machine: MachineInfo = { hostname: 'h', cpuModel: 'c', cores: 2, ramBytes: 1, os: 'Linux', node: 'v20', gpus: [] };

const stats = (lines: Array<[step: number, images: number, wait: number, stepMs: number]>): StepStats => {
  const s = new StepStats();
  for (const [step, images, waitMs, stepMs] of lines) s.record({ step, images, waitMs, stepMs });
  return s;
};

describe('step lines', () => {
  it('parses exactly the four keys as numbers ≥ 0; a wait longer than its step makes the step that long', () => {
    expect(stepOf(jsonObjectOf('{"step": 3, "images": 24, "wait_ms": 1.5, "step_ms": 9}')!)).toEqual({
      step: 3,
      images: 24,
      waitMs: 1.5,
      stepMs: 9,
    });
    expect(stepOf(jsonObjectOf('{"step": 3, "images": 24, "wait_ms": 12, "step_ms": 9}')!)?.stepMs).toBe(12);
    expect(stepOf(jsonObjectOf('{"step": 3, "images": 24, "wait_ms": "1", "step_ms": 9}')!)).toBeNull();
    expect(stepOf(jsonObjectOf('{"step": 3, "images": 24}')!)).toBeNull();
    expect(stepOf(jsonObjectOf('{"step": 3, "images": 24, "wait_ms": -1, "step_ms": 9}')!)).toBeNull();
  });
});

describe('StepStats', () => {
  it('leaves the first step out, takes the share from sums, and counts images across per-epoch resets', () => {
    // Two epochs of 3 steps of 8 images (a new watch() per epoch: counts restart).
    const s = stats([
      [1, 8, 500, 510], // start-up: left out
      [2, 16, 30, 40],
      [3, 24, 30, 40],
      [1, 8, 30, 40],
      [2, 16, 30, 40],
      [3, 24, 30, 40],
    ]);
    const m = s.measures(null);
    expect(m.steps).toBe(6);
    expect(m.waitShare).toBeCloseTo(0.75, 10);
    expect(m.stepsPerSec).toBeCloseTo(25, 10);
    expect(m.imagesPerSec).toBeCloseTo(200, 10); // 5 steps × 8 images in 0.2 s
    expect([m.waitP50Ms, m.stepP50Ms, m.waitMeanMs, m.stepMeanMs]).toEqual([30, 40, 30, 40]);
  });

  it('keeps at most SERIES_MAX stretches for the chart', () => {
    const s = new StepStats();
    for (let i = 1; i <= 5000; i++) s.record({ step: i, images: i * 4, waitMs: 1, stepMs: 2 });
    const m = s.measures(null);
    expect(m.series.length).toBeLessThanOrEqual(SERIES_MAX);
    expect(m.series[m.series.length - 1]).toEqual({ step: 5000, waitMs: 1, stepMs: 2 });
  });

  it('per window: the mean wait of the steps reported since the last call, null when none', () => {
    const s = stats([
      [1, 8, 10, 20],
      [2, 16, 20, 30],
    ]);
    expect(s.windowWaitPerStep()).toBe(15);
    expect(s.windowWaitPerStep()).toBeNull();
  });
});

describe('exec verdict bands', () => {
  const at = (share: number) =>
    diagnoseExec(
      {
        imagesPerSec: 100,
        steps: 10,
        stepsPerSec: 10,
        waitShare: share,
        waitP50Ms: 1,
        waitP95Ms: 2,
        stepP50Ms: 10,
        waitMeanMs: share * 10,
        stepMeanMs: 10,
        series: [],
      },
      [],
      machine,
    ).kind;
  it(`input-bound above ${EXEC_THRESHOLDS.inputBound}, compute-bound below ${EXEC_THRESHOLDS.computeBound}, balanced between`, () => {
    expect([at(0.75), at(0.21), at(0.2), at(0.05), at(0.049), at(0)]).toEqual([
      'input-bound',
      'input-bound',
      'balanced',
      'balanced',
      'compute-bound',
      'compute-bound',
    ]);
  });
  it('nothing reported: unknown, saying so', () => {
    const v = diagnoseExec(new StepStats().measures(null), [], machine);
    expect(v.kind).toBe('unknown');
    expect(v.summary).toMatch(/reported no images and no steps/);
  });
});

import type { PointConfig, PointResult, ProfilePlan } from '../../api/profile-model.js';
import type { PipelineStep } from '../../pipeline/spec.js';
import type { Telemetry } from '../sampling/telemetry.js';
import type { PointMeter } from './point-meter.js';

/**
 * What one sweep's point loops share (ours in beton-points.ts, the Python engines' in
 * python-points.ts), passed explicitly: the completed plan, its grid, the image pipeline, the
 * telemetry and its point meter, and where measured points go.
 */
export interface SweepRun {
  readonly plan: ProfilePlan;
  /** The grid in index order (api/profile-plan.ts pointsOf). */
  readonly grid: readonly PointConfig[];
  /** The image field's pipeline: the plan's decoder, the flip when asked, ToCHW. */
  readonly steps: PipelineStep[];
  /** The file's first image field; undefined in a file without one. */
  readonly imageField: string | undefined;
  readonly numSamples: number;
  readonly cores: number;
  readonly telemetry: Telemetry;
  readonly meter: PointMeter;
  readonly signal: AbortSignal | undefined;
  /** The points measured so far, in the order reported. */
  readonly points: readonly PointResult[];
  /** A point is measured: kept and reported (onPoint). */
  report(point: PointResult): void;
  /** What the sweep does or waits for now, in words (onWait, with the points done). */
  wait(message: string): void;
}

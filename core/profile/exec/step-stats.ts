/**
 * The probe's per-step reports (`{"step", "images", "wait_ms", "step_ms"}`, exec-protocol.ts)
 * gathered over an exec run: per telemetry window the mean wait per step (the live chart's
 * TelemetrySample.waitMsPerStep), and at the end the measures an exec verdict is made from.
 * Pure: no I/O, no clock.
 */
import type { ExecMeasures, StepPoint } from '../../api/profile-model.js';
import type { StepReport } from './exec-protocol.js';

/** At most this many stretches of steps are kept for the wait chart. */
export const SERIES_MAX = 240;

/** Steps at the start left out of the measures: the first batch pays for start-up (workers, JIT, caches). */
export const WARMUP_STEPS = 1;

const percentile = (sorted: Float64Array, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]!;

export class StepStats {
  private waits: number[] = [];
  private steps: number[] = [];
  private reported = 0;
  /** The previous report's step and cumulative images, to tell a step's images and counter resets (a new watch() per epoch). */
  private prev: { step: number; images: number } | null = null;
  private measuredImages = 0;
  private windowWait = 0;
  private windowSteps = 0;

  record(r: StepReport): void {
    this.reported++;
    const reset = this.prev === null || r.step <= this.prev.step || r.images < this.prev.images;
    const images = reset ? r.images : r.images - this.prev!.images;
    this.prev = { step: r.step, images: r.images };
    this.windowWait += r.waitMs;
    this.windowSteps++;
    if (this.reported <= WARMUP_STEPS) return;
    this.waits.push(r.waitMs);
    this.steps.push(r.stepMs);
    this.measuredImages += images;
  }

  /** Mean wait per step reported since the last call; null when none was (telemetry's waitPerStep hook). */
  windowWaitPerStep(): number | null {
    const w = this.windowSteps > 0 ? this.windowWait / this.windowSteps : null;
    this.windowWait = this.windowSteps = 0;
    return w;
  }

  /** Step reports received (warm-up included). */
  get count(): number {
    return this.reported;
  }

  /** The measures, given the command's images/s from its counts (used when no step was measured). */
  measures(imagesPerSec: number | null): ExecMeasures {
    const n = this.steps.length;
    if (n === 0)
      return {
        imagesPerSec,
        steps: this.reported,
        stepsPerSec: null,
        waitShare: null,
        waitMeanMs: null,
        stepMeanMs: null,
        waitP50Ms: null,
        waitP95Ms: null,
        stepP50Ms: null,
        series: [],
      };
    const sumStep = this.steps.reduce((a, b) => a + b, 0);
    const sumWait = this.waits.reduce((a, b) => a + b, 0);
    const w = Float64Array.from(this.waits).sort();
    const s = Float64Array.from(this.steps).sort();
    const seconds = sumStep / 1000;
    const stepsPerSec = seconds > 0 ? n / seconds : null;
    return {
      // Over the measured steps' own time: what the training loop runs at, start-up and gaps between epochs left out.
      imagesPerSec: seconds > 0 && this.measuredImages > 0 ? this.measuredImages / seconds : imagesPerSec,
      steps: this.reported,
      stepsPerSec,
      waitShare: sumStep > 0 ? Math.min(1, sumWait / sumStep) : null,
      waitMeanMs: sumWait / n,
      stepMeanMs: sumStep / n,
      waitP50Ms: percentile(w, 0.5),
      waitP95Ms: percentile(w, 0.95),
      stepP50Ms: percentile(s, 0.5),
      series: this.series(),
    };
  }

  /** Consecutive measured steps in at most SERIES_MAX stretches, each with its mean wait and step time. */
  private series(): StepPoint[] {
    const n = this.steps.length;
    const per = Math.max(1, Math.ceil(n / SERIES_MAX));
    const out: StepPoint[] = [];
    for (let i = 0; i < n; i += per) {
      const end = Math.min(n, i + per);
      let w = 0;
      let s = 0;
      for (let k = i; k < end; k++) {
        w += this.waits[k]!;
        s += this.steps[k]!;
      }
      const k = end - i;
      out.push({ step: end + WARMUP_STEPS, waitMs: round(w / k), stepMs: round(s / k) });
    }
    return out;
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

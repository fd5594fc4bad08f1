/**
 * The build rate the app shows: samples done over (at least) the last second of the build,
 * by the writer's own clock. The since-start average (WriteProgress.samplesPerSec, what the
 * CLI prints) counts start-up, so its early values are far below the throughput and a chart
 * of it climbs for minutes. Computed here, where the clock is, not by each front end from
 * events that reach it late and in bursts.
 */

/** The window the rate spans. */
export const RATE_WINDOW_MS = 1000;
/** Below this span a rate is noise (two reports a few ms apart): no rate yet. */
export const RATE_MIN_SPAN_MS = 250;

export interface RatePoint {
  /** ms since the build started. */
  t: number;
  /** Source items handled by then. */
  done: number;
}

/**
 * Adds a report to the window and gives the rate over it: samples since the oldest report
 * still needed to span RATE_WINDOW_MS. Null for the first report (start-up is not a rate)
 * and while the reports span less than RATE_MIN_SPAN_MS.
 */
export function windowRate(recent: readonly RatePoint[], t: number, done: number): { recent: RatePoint[]; rate: number | null } {
  const next = [...recent.filter((r) => r.t < t), { t, done }];
  // Keep one report at or before the window's start as its baseline.
  while (next.length > 2 && next[1]!.t <= t - RATE_WINDOW_MS) next.shift();
  const base = next[0]!;
  const rate = next.length >= 2 && t - base.t >= RATE_MIN_SPAN_MS && done >= base.done ? ((done - base.done) * 1000) / (t - base.t) : null;
  return { recent: next, rate };
}

/** A build's rate window: one per DatasetWriter job. */
export class RateWindow {
  private recent: RatePoint[] = [];

  /** The rate after this report (null as windowRate says: a front end keeps showing the last one). */
  add(t: number, done: number): number | null {
    const w = windowRate(this.recent, t, done);
    this.recent = w.recent;
    return w.rate;
  }
}

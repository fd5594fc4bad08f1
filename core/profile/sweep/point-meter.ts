/**
 * What the telemetry reads of the point being measured, every sample (~250 ms): images/s
 * since its last read and the consumer's mean wait per batch. The point loops feed it, ours
 * (each batch) and the Python engines' (their progress lines); between points it reads null.
 */
export class PointMeter {
  private measuring = false;
  /** Images of the current point so far. */
  private counted = 0;
  /** `counted` at the telemetry's last throughput read. */
  private lastCount = 0;
  /** The consumer's wait for batches since the last waitPerStep read (ms), and how many batches. */
  private waited = 0;
  private waitedSteps = 0;

  /** A point's measured time starts: everything counts from zero. */
  start(): void {
    this.counted = this.lastCount = 0;
    this.waited = this.waitedSteps = 0;
    this.measuring = true;
  }

  /** The point's measured time is over: the telemetry reads null until the next start. */
  stop(): void {
    this.measuring = false;
  }

  /** `images` more arrived (our loop, per batch). */
  add(images: number): void {
    this.counted += images;
  }

  /** The point's images so far (a Python engine reports its running total). */
  setCount(images: number): void {
    this.counted = images;
  }

  /** The consumer waited `ms` for one batch. */
  waitedFor(ms: number): void {
    this.waited += ms;
    this.waitedSteps++;
  }

  /** Images/s over the telemetry window that just ended (`windowMs` long); null between points. */
  throughput(windowMs: number): number | null {
    if (!this.measuring) return null;
    const n = this.counted - this.lastCount;
    this.lastCount = this.counted;
    return (n / windowMs) * 1000;
  }

  /** The mean wait per batch since the last read (ms); null between points or when no batch came. */
  waitPerStep(): number | null {
    const w = this.measuring && this.waitedSteps > 0 ? this.waited / this.waitedSteps : null;
    this.waited = this.waitedSteps = 0;
    return w;
  }
}

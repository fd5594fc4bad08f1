import type { MainTimings, WorkerTimings, WriterTimings } from '../api/writer-timings.js';
import { threadCpuMs } from '../native/writer-transcode.js';

/** The main thread's timed stages (MainTimings). */
export type MainStage = 'placeMs' | 'pageWriteMs';

/**
 * Where a write's time goes (DatasetWriterOptions.timings). The hot path calls its probe
 * unconditionally; with timings off the probe is `NO_TIMINGS`, whose calls do nothing and
 * read no clock, so placement and page writes carry no `if (timings)` of their own.
 */
export interface TimingProbe {
  /** A start mark to hand to `stop` (0 when off: no clock read). */
  start(): number;
  /** Adds the wall time since `t0` to `stage`. */
  stop(stage: MainStage, t0: number): void;
  /** Each encode worker's final account. */
  setWorkers(workers: Iterable<WorkerTimings>): void;
  /** The write's account, or null when off. Page writes happen inside placement, so placement is reported without them. */
  report(wallMs: number, finishMs: number): WriterTimings | null;
}

/** The probe for `on` (opts.timings); the main thread's CPU clock starts now. */
export function timingProbe(on: boolean): TimingProbe {
  return on ? new MainThreadTimings() : NO_TIMINGS;
}

const NO_TIMINGS: TimingProbe = {
  start: () => 0,
  stop: () => undefined,
  setWorkers: () => undefined,
  report: () => null,
};

class MainThreadTimings implements TimingProbe {
  private readonly main: Omit<MainTimings, 'finishMs'> = { cpuMs: null, placeMs: 0, pageWriteMs: 0 };
  private readonly cpu0 = threadCpuMs();
  private workers: WorkerTimings[] = [];

  start(): number {
    return performance.now();
  }

  stop(stage: MainStage, t0: number): void {
    this.main[stage] += performance.now() - t0;
  }

  setWorkers(workers: Iterable<WorkerTimings>): void {
    this.workers = [...workers];
  }

  report(wallMs: number, finishMs: number): WriterTimings {
    const c1 = threadCpuMs();
    const cpuMs = this.cpu0 !== null && c1 !== null ? c1 - this.cpu0 : null;
    return {
      wallMs,
      main: { ...this.main, cpuMs, placeMs: Math.max(0, this.main.placeMs - this.main.pageWriteMs), finishMs },
      workers: this.workers,
    };
  }
}

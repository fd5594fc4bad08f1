/**
 * Records a run while it runs: started ('running') as soon as its plan, machine and dataset
 * are known, each point as it is measured, samples every few seconds with a heartbeat, and
 * its end. So a sweep whose process dies (server killed, CLI SIGKILLed, machine down) is in
 * the runs as 'interrupted' with the points it finished (core/runs/liveness.ts), not lost.
 * With a recorder that can only save whole runs, everything is saved at the end as before.
 */
import type { PointResult, ProfileRun, RunFailure, RunStart, TelemetrySample, Verdict } from '../api/profile-model.js';

/** Where runs are recorded (a RunsDb, or one opened per call): saveRun is enough; the rest records as it goes. */
export interface RunRecorder {
  saveRun(run: ProfileRun): number;
  startRun?(run: RunStart): number;
  addPoint?(runId: number, p: PointResult): void;
  addSamples?(runId: number, samples: readonly TelemetrySample[]): number;
  heartbeat?(runId: number, at?: string): void;
  finishRun?(
    runId: number,
    status: ProfileRun['status'],
    verdict: Verdict | null,
    finishedAt?: string,
    failure?: RunFailure | null,
    end?: Pick<ProfileRun, 'answer' | 'engineFailures'>,
  ): void;
}

/** How often buffered samples are written (with a heartbeat): below liveness.ts's HEARTBEAT_MS. */
const FLUSH_MS = 1_500;

export class RunWriter {
  private id: number | null = null;
  private pending: TelemetrySample[] = [];
  private lastFlush = 0;
  /** A database error while recording as we go: the run is saved whole at the end instead. */
  private broken = false;

  constructor(private readonly runs: RunRecorder) {}

  private get incremental(): boolean {
    const r = this.runs;
    return !this.broken && !!(r.startRun && r.addPoint && r.addSamples && r.heartbeat && r.finishRun);
  }

  /** The run's id once started (null before, or when the recorder saves only whole runs). */
  get runId(): number | null {
    return this.id;
  }

  start(run: RunStart): void {
    if (!this.incremental || this.id !== null) return;
    this.guard(() => {
      this.id = this.runs.startRun!(run);
      this.lastFlush = Date.now();
    });
  }

  point(p: PointResult): void {
    if (this.id === null || !this.incremental) return;
    this.guard(() => this.runs.addPoint!(this.id!, p));
  }

  sample(s: TelemetrySample): void {
    if (this.id === null || !this.incremental) return;
    this.pending.push(s);
    if (Date.now() - this.lastFlush >= FLUSH_MS) this.flush();
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.lastFlush = Date.now();
    this.guard(() => {
      if (batch.length) this.runs.addSamples!(this.id!, batch);
      this.runs.heartbeat!(this.id!);
    });
  }

  /**
   * Records the end: the started run is finished with the final status, verdict and failure
   * (its points and samples are already in); otherwise the whole run is saved. Returns its id.
   */
  finish(run: ProfileRun): number {
    if (this.id !== null && this.incremental) {
      try {
        this.flush();
        if (this.incremental) {
          // Points measured but not recorded (a point added before start) are not possible: start precedes them.
          this.runs.finishRun!(this.id, run.status, run.verdict, run.finishedAt ?? new Date().toISOString(), run.failure ?? null, {
            answer: run.answer ?? null,
            ...(run.engineFailures ? { engineFailures: run.engineFailures } : {}),
          });
          return this.id;
        }
      } catch {
        this.broken = true;
      }
    }
    return this.runs.saveRun(run);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // The run is still measured; it is saved whole at the end (where a failure is reported).
      this.broken = true;
    }
  }
}

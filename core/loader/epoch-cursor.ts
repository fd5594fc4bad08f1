/**
 * Where a loader's iteration stands: the epoch being iterated with the last batch it handed
 * out, or (between iterations) the epoch and batch the next iteration starts from. state()
 * and resume() read and set it; an epoch run (epoch-run.ts, gather-epoch.ts) moves it.
 */
export class EpochCursor {
  /** The epoch the next iteration runs, and the batch it starts at (0 unless resumed or broken out of). */
  nextEpoch = 0;
  startBatch = 0;
  /** The epoch being iterated and its last batch handed to the consumer; null between iterations. */
  current: { epoch: number; held: number } | null = null;

  /** An iteration starts: it runs `nextEpoch` from `startBatch`; the one after runs the next epoch from its start. */
  take(): { epoch: number; start: number } {
    const taken = { epoch: this.nextEpoch, start: this.startBatch };
    this.nextEpoch = taken.epoch + 1;
    this.startBatch = 0;
    return taken;
  }

  /** The iteration's batches begin (none handed out yet); the run moves `held` as it hands them out. */
  enter(epoch: number, start: number): { epoch: number; held: number } {
    this.current = { epoch, held: start - 1 };
    return this.current;
  }

  /**
   * The iteration ended, having run `length` batches or broken out earlier: a break
   * mid-epoch is remembered, so the next iteration (and state()) continues from there.
   */
  leave(length: number): void {
    if (this.current && this.current.held + 1 < length) {
      this.nextEpoch = this.current.epoch;
      this.startBatch = this.current.held + 1;
    }
    this.current = null;
  }
}

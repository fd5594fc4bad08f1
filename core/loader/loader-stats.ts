/** What a loader measured over its iterations so far (Loader.stats()). */
export interface LoaderStats {
  batches: number;
  /**
   * Time the consumer waited for each of the latest batches (ms), oldest first: at least the
   * last WAIT_WINDOW, at most twice that (a run of a million batches an epoch must not grow
   * without end). `batches` counts them all; `waitsSince` takes the ones after a snapshot.
   */
  waitMs: number[];
  /** Summed busy time of the workers (ms). */
  workerBusyMs: number;
  /** The workers' busy time per pipeline stage (ms): read, decode, each op by name (the profiler's stage costs). */
  stageMs?: Record<string, number>;
  /** Process cache: pages read from disk. */
  pagesRead: number;
  /** Epoch orders a worker had computed before their epoch started (inline gather only; the others were computed on the consumer's thread). */
  ordersPrefetched: number;
}

/** Batches whose waits stats() keeps at least (LoaderStats.waitMs). */
export const WAIT_WINDOW = 65_536;

/** Records one batch's wait: the oldest WAIT_WINDOW are dropped at 2 × WAIT_WINDOW, so each costs O(1) amortised. */
export function recordWait(stats: LoaderStats, ms: number): void {
  stats.waitMs.push(ms);
  stats.batches++;
  if (stats.waitMs.length >= 2 * WAIT_WINDOW) stats.waitMs.splice(0, stats.waitMs.length - WAIT_WINDOW);
}

/** The waits of the batches after `before` (two stats() snapshots); the last WAIT_WINDOW or more of them when there were more. */
export function waitsSince(before: LoaderStats, after: LoaderStats): number[] {
  const n = Math.min(after.batches - before.batches, after.waitMs.length);
  return n > 0 ? after.waitMs.slice(after.waitMs.length - n) : [];
}

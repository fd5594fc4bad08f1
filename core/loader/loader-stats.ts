/** What a loader measured over its iterations so far (Loader.stats()). */
export interface LoaderStats {
  batches: number;
  /** Time the consumer waited for each batch (ms). */
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

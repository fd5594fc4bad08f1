import type { MemoryPlan } from '../protocol.js';

/** How a worker gets a heap object's bytes: a zero-copy view whatever the strategy. */
export interface HeapAccess {
  bytes(ptr: number, size: number): Uint8Array;
}

/** The pages one batch keeps resident until its workers are done with it. */
export interface PageHold {
  release(): void;
}

/**
 * How the loader's workers reach the file's bytes, as FFCV's memory managers: the OS
 * page cache through a memory map (os-cache.ts), or the loader's own bounded page pool
 * (process-cache.ts). The loader asks for a batch's pages before dispatching it and
 * lets them go when the batch is done; what that costs is the strategy's business.
 */
export interface MemoryManager {
  /** What the workers get (WorkerInit.memory) to open their side, a HeapAccess (heap-access.ts). */
  readonly plan: MemoryPlan;
  /**
   * Makes the pages of these samples resident, pinned until the hold is released. A
   * strategy with nothing to load answers synchronously: the loader then dispatches a
   * ring's worth of batches without a promise hop each (tabular rows cost nanoseconds).
   */
  hold(sampleIds: Uint32Array): PageHold | Promise<PageHold>;
  /** Pages this manager read from disk (a profiler figure; the OS cache reads none itself). */
  readonly pagesRead: number;
  close(): Promise<void>;
}

import type { Worker } from 'node:worker_threads';
import type { LoaderStats } from './loader-stats.js';
import type { WorkerRequest } from './protocol.js';

/** Epochs whose orders worker 0 computes ahead: two, so an epoch shorter than a shuffle still finds its order done. */
export const ORDERS_AHEAD = 2;

/**
 * The next epochs' orders, computed ahead by worker 0 (the inline-gather path with a built-in
 * order: WorkerInit.order). Worker 0 is idle there, so one core computes the orders while
 * this one gathers; an order not ready in time is computed on the consumer's thread. Two
 * epochs ahead: a 1.28M-sample epoch gathers in ~45 ms, about what its shuffle takes, so
 * asking only for the next one often found it unfinished.
 */
export class OrderPrefetch {
  private readonly asked = new Map<number, SharedArrayBuffer>();

  constructor(
    private readonly worker: Worker,
    private readonly stats: LoaderStats,
  ) {}

  /** Asks worker 0 for the orders of epochs `from` … `from + ORDERS_AHEAD − 1` not asked yet, each `length` ids. */
  ask(from: number, length: number): void {
    // Only the window stays (a resume() elsewhere leaves the others unused).
    for (const e of this.asked.keys()) if (e < from || e >= from + ORDERS_AHEAD) this.asked.delete(e);
    for (let epoch = from; epoch < from + ORDERS_AHEAD; epoch++) {
      if (this.asked.has(epoch)) continue;
      const into = new SharedArrayBuffer(8 + 4 * length);
      this.asked.set(epoch, into);
      this.worker.postMessage({ type: 'order', epoch, into } satisfies WorkerRequest);
    }
  }

  /** The order worker 0 finished for `epoch`, or null (not asked, not done yet, failed): then computed here. */
  take(epoch: number): Uint32Array | null {
    const buf = this.asked.get(epoch);
    this.asked.delete(epoch);
    if (!buf) return null;
    const state = new Int32Array(buf, 0, 2);
    if (Atomics.load(state, 0) !== 1) return null;
    this.stats.ordersPrefetched++;
    return new Uint32Array(buf, 8, Atomics.load(state, 1));
  }
}

import type { Worker } from 'node:worker_threads';
import type { LoaderStats } from './loader-stats.js';
import type { WorkerRequest } from './protocol.js';

/**
 * The next epoch's order, computed ahead by worker 0 (the inline-gather path with a built-in
 * order: WorkerInit.order). Worker 0 is idle there, so one core computes the order while
 * this one gathers; an order not ready in time is computed on the consumer's thread.
 */
export class OrderPrefetch {
  private next: { epoch: number; buf: SharedArrayBuffer } | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly stats: LoaderStats,
  ) {}

  /** Asks worker 0 for epoch `epoch`'s order of `length` ids. */
  ask(epoch: number, length: number): void {
    const buf = new SharedArrayBuffer(8 + 4 * length);
    this.next = { epoch, buf };
    this.worker.postMessage({ type: 'order', epoch, into: buf } satisfies WorkerRequest);
  }

  /** The order worker 0 finished for `epoch`, or null (not asked, another epoch, not done yet, failed): then computed here. */
  take(epoch: number): Uint32Array | null {
    const p = this.next;
    this.next = null;
    if (!p || p.epoch !== epoch) return null;
    const state = new Int32Array(p.buf, 0, 2);
    if (Atomics.load(state, 0) !== 1) return null;
    this.stats.ordersPrefetched++;
    return new Uint32Array(p.buf, 8, Atomics.load(state, 1));
  }
}

import type { Worker } from 'node:worker_threads';
import type { Batch } from './batch.js';
import type { EpochCursor } from './epoch-cursor.js';
import { LoaderError } from './errors.js';
import { recordWait, type LoaderStats } from './loader-stats.js';
import type { MemoryManager, PageHold } from './memory/memory-manager.js';
import type { WorkerReply, WorkerRequest } from './protocol.js';
import type { BatchRing } from './ring.js';
import type { Reader } from '../reader/reader.js';

/** Whether the loader is closed, and why if a worker failed: shared with the loader, read as they change. */
export interface LoaderLife {
  closed: boolean;
  failure: Error | null;
}

/** What an epoch run uses of its loader (loader.ts builds it once). */
export interface EpochLoader {
  /** Batches per epoch, and rows per full batch. */
  readonly length: number;
  readonly batchSize: number;
  readonly workers: readonly Worker[];
  readonly memory: MemoryManager;
  /** Per ring slot, the next row to claim (the workers count up; a dispatch resets it). */
  readonly claims: Int32Array;
  /** Rows cost nanoseconds (tabular outputs): one worker per batch. */
  readonly cheapBatches: boolean;
  readonly ring: BatchRing;
  readonly stats: LoaderStats;
  readonly cursor: EpochCursor;
  readonly life: LoaderLife;
  readonly signal: AbortSignal | undefined;
  readonly reader: Reader;
  close(): Promise<void>;
  /** A worker's decode failure as the error the consumer gets. */
  corruptSample(r: Extract<WorkerReply, { type: 'error' }>): LoaderError;
  /**
   * An iteration starts (on its first next()): refused when closed or already iterating;
   * else the epoch and first batch it runs, and the epoch's sample ids cut to its batches.
   */
  begin(): { epoch: number; start: number; ids: Uint32Array };
  /** The worker path's run gets the workers' replies and close()'s wake-up (null: none); the workers hold the process meanwhile. */
  attach(run: WorkerEpoch | null): void;
}

/**
 * One epoch on the worker path: batches are dispatched to the decode workers while ring
 * slots are free, each once `memory.hold` has its pages; a batch's pages are released when
 * all its workers have answered, and the consumer gets the batches in order. The loader
 * forwards the workers' replies (`onReply`) and wakes a waiting iteration on close (`notify`).
 */
export class WorkerEpoch {
  /** Per dispatched batch, the workers that have not answered yet. */
  private readonly remaining = new Map<number, number>();
  /** Per dispatched batch, its pages (released once its workers are done). */
  private readonly held = new Map<number, PageHold>();
  /** Batches decoded and not yet handed to the consumer. */
  private readonly ready = new Set<number>();
  /** The batch the consumer waits for: slots are free from here to here + slots. */
  private releasedUpTo = 0;
  private nextDispatch = 0;
  /** Resolves the consumer's wait (a batch is ready, an error, close()). */
  private wake: (() => void) | null = null;
  /** The first failure; set to CLOSED when the iteration ends, which stops dispatching. */
  private error: Error | null = null;
  private pumping = false;

  // Set when the iteration starts (begin(), on the first next()).
  private epoch = 0;
  /** The epoch's sample ids, cut to its batches, in shared memory (the workers read their rows from it). */
  private order: Uint32Array = new Uint32Array(0);
  private total = 0;

  constructor(private readonly loader: EpochLoader) {}

  /** Wakes the consumer's wait. */
  notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** close() was called (not a failure): the iteration ends as if the consumer broke out. */
  private closedByUser(): boolean {
    return this.loader.life.closed && !this.loader.life.failure;
  }

  private sizeOf(b: number): number {
    return Math.min(this.loader.batchSize, this.total - b * this.loader.batchSize);
  }

  /** A worker's answer: a job done (the batch is ready once all its workers are), or an error. */
  onReply(r: WorkerReply): void {
    const stats = this.loader.stats;
    if (r.type === 'done') {
      stats.workerBusyMs += r.busyMs;
      if (r.stageMs) {
        const into = (stats.stageMs ??= {});
        for (const [k, v] of Object.entries(r.stageMs)) into[k] = (into[k] ?? 0) + v;
      }
      const left = (this.remaining.get(r.batch) ?? 1) - 1;
      this.remaining.set(r.batch, left);
      if (left === 0) {
        this.remaining.delete(r.batch);
        this.held.get(r.batch)?.release();
        this.held.delete(r.batch);
        this.ready.add(r.batch);
        this.notify();
      }
    } else if (r.type === 'error') {
      this.error ??=
        r.sample >= 0 ? this.loader.corruptSample(r) : (this.loader.life.failure ?? new LoaderError('WORKER_FAILED', r.message));
      this.notify();
    }
  }

  /** Dispatch batches while ring slots are free, each once its pages are held. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const { batchSize: bs, length, life, memory, workers, claims } = this.loader;
    const S = this.loader.ring.slots;
    try {
      while (!this.error && !life.closed && this.nextDispatch < length && this.nextDispatch < this.releasedUpTo + S) {
        const b = this.nextDispatch++;
        const n = this.sizeOf(b);
        const pending = memory.hold(this.order.subarray(b * bs, b * bs + n));
        const hold = pending instanceof Promise ? await pending : pending;
        if (this.error || life.closed) {
          // The iteration ended while the pages were loading: dispatch nothing more.
          hold.release();
          return;
        }
        this.held.set(b, hold);
        // Every worker works on the batch, claiming rows from the slot's counter; the
        // batch is done when all of them have answered. The slot's last user has finished
        // (its batch was released), so the counter can be reset.
        // Rows that cost nanoseconds (tabular files) are not worth a second worker's
        // message round trip: one worker takes the batch, the next batch goes to the next.
        const parts = this.loader.cheapBatches ? 1 : Math.min(workers.length, n);
        this.remaining.set(b, parts);
        Atomics.store(claims, b % S, 0);
        for (let p = 0; p < parts; p++) {
          workers[(b + p) % workers.length]!.postMessage({
            type: 'job',
            epoch: this.epoch,
            batch: b,
            slot: b % S,
            size: n,
          } satisfies WorkerRequest);
        }
      }
    } catch (e) {
      this.error ??= e as Error;
      this.notify();
    } finally {
      this.pumping = false;
    }
  }

  /** The epoch's batches, in order; ending the iteration drains the jobs in flight. */
  async *batches(): AsyncGenerator<Batch> {
    const { batchSize: bs, length, cursor, stats, signal, workers } = this.loader;
    const { epoch, start, ids } = this.loader.begin();
    const total = ids.length;
    const orderBuf = new SharedArrayBuffer(Math.max(4, total * 4));
    const order = new Uint32Array(orderBuf);
    order.set(ids);
    for (const w of workers) w.postMessage({ type: 'epoch', epoch, order: orderBuf } satisfies WorkerRequest);
    this.epoch = epoch;
    this.order = order;
    this.total = total;
    this.releasedUpTo = start;
    this.nextDispatch = start;
    this.loader.attach(this);
    const at = cursor.enter(epoch, start);
    try {
      for (let b = start; b < length; b++) {
        if (this.closedByUser()) return;
        this.releasedUpTo = b;
        at.held = b - 1;
        void this.pump();
        const t0 = performance.now();
        while (!this.ready.has(b) && !this.error) {
          await new Promise<void>((r) => {
            const onAbort = (): void => r();
            this.wake = () => {
              signal?.removeEventListener('abort', onAbort);
              r();
            };
            signal?.addEventListener('abort', onAbort, { once: true });
          });
          signal?.throwIfAborted();
          if (this.closedByUser()) return;
          void this.pump();
        }
        if (this.error) throw this.error;
        this.ready.delete(b);
        recordWait(stats, performance.now() - t0);
        at.held = b;
        yield this.loader.ring.batch(epoch, b, order.subarray(b * bs, b * bs + this.sizeOf(b)));
      }
    } catch (e) {
      if ((e as LoaderError).code === 'CORRUPT_SAMPLE' || (e as LoaderError).code === 'WORKER_FAILED') await this.loader.close();
      throw e;
    } finally {
      // Broke out mid-epoch: remember where, for state()/resume().
      cursor.leave(length);
      // Stop dispatching, and let in-flight jobs drain before the next epoch reuses the slots.
      this.error ??= new LoaderError('CLOSED', 'iteration ended');
      while (this.remaining.size > 0 && !this.loader.life.closed) await new Promise<void>((r) => ((this.wake = r), setTimeout(r, 50)));
      this.loader.attach(null);
      for (const hold of this.held.values()) hold.release();
    }
  }
}

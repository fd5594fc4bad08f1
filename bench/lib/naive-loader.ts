/**
 * A naive loader, as users write one without a dataset format: the ImageFolder's files,
 * decoded and augmented by sharp, collated into batches. Modelled on PyTorch's DataLoader
 * with N worker processes (here worker_threads): worker k builds whole batches k, k+N, …
 * (see naive-worker.ts for the per-sample work), at most `prefetch` batches outstanding per
 * worker (PyTorch's prefetch_factor, default 2), and the main thread yields them in order.
 * Each worker handles one image at a time with one libvips thread, so N workers use about
 * N cores, as N loader workers do. Same crops and flips as the loader (same seeded rng),
 * same output: uint8 CHW S×S images and int64 labels, dropLast.
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../core/workers/spawn-worker.js';
import { rngFor } from '../../core/pipeline/rng.js';

export interface NaiveInit {
  paths: string[];
  labels: number[];
  size: number;
  seed: number;
  sharpConcurrency: number;
}

export type NaiveRequest = { type: 'batch'; epoch: number; batch: number; ids: number[] };

export type NaiveReply =
  | { type: 'ready' }
  | { type: 'batch'; batch: number; images: ArrayBuffer; labels: ArrayBuffer; busyMs: number }
  | { type: 'error'; batch: number; message: string };

export interface NaiveBatch {
  index: number;
  images: Uint8Array;
  labels: BigInt64Array;
}

export interface NaiveOptions {
  workers: number;
  batchSize: number;
  size: number;
  seed: number;
  prefetch?: number;
}

export class NaiveLoader {
  /** Summed time workers spent building batches (ms). */
  busyMs = 0;
  private onReply: ((w: number, r: NaiveReply) => void) | null = null;

  private constructor(
    private readonly items: ReadonlyArray<{ path: string; label: number }>,
    private readonly o: Required<NaiveOptions>,
    private readonly workers: Worker[],
  ) {
    workers.forEach((w, i) => w.on('message', (r: NaiveReply) => this.onReply?.(i, r)));
  }

  static async open(items: ReadonlyArray<{ path: string; label: number }>, o: NaiveOptions): Promise<NaiveLoader> {
    const init: NaiveInit = {
      paths: items.map((i) => i.path),
      labels: items.map((i) => i.label),
      size: o.size,
      seed: o.seed,
      sharpConcurrency: 1,
    };
    const workers = Array.from({ length: o.workers }, () => spawnWorker('./naive-worker.js', import.meta.url, init));
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once('message', (r: NaiveReply) =>
              r.type === 'ready' ? resolve() : reject(new Error(`naive worker: unexpected ${r.type}`)),
            );
            w.once('error', reject);
          }),
      ),
    );
    return new NaiveLoader(items, { prefetch: 2, ...o }, workers);
  }

  /** Batches per epoch (dropLast). */
  get length(): number {
    return Math.floor(this.items.length / this.o.batchSize);
  }

  /** One epoch in a seeded random order (Fisher–Yates); `limitBatches` stops early (warm-up). */
  async *epoch(epoch: number, limitBatches = Infinity): AsyncGenerator<NaiveBatch> {
    const order = Array.from({ length: this.items.length }, (_, i) => i);
    const rng = rngFor(this.o.seed, epoch, 0, 999);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const total = Math.min(this.length, limitBatches);
    const W = this.workers.length;
    const done = new Map<number, NaiveBatch>();
    const outstanding = new Array<number>(W).fill(0);
    let next = 0;
    let error: Error | null = null;
    let wake: (() => void) | null = null;
    const dispatch = (): void => {
      // Batch b goes to worker b mod W, in order, while that worker has room.
      while (next < total && outstanding[next % W]! < this.o.prefetch) {
        const b = next++;
        const w = b % W;
        outstanding[w]!++;
        const ids = order.slice(b * this.o.batchSize, (b + 1) * this.o.batchSize);
        this.workers[w]!.postMessage({ type: 'batch', epoch, batch: b, ids } satisfies NaiveRequest);
      }
    };
    this.onReply = (w, r) => {
      if (r.type === 'batch') {
        outstanding[w]!--;
        this.busyMs += r.busyMs;
        done.set(r.batch, { index: r.batch, images: new Uint8Array(r.images), labels: new BigInt64Array(r.labels) });
      } else if (r.type === 'error') error ??= new Error(`naive loader, batch ${r.batch}: ${r.message}`);
      const f = wake;
      wake = null;
      f?.();
    };
    try {
      dispatch();
      for (let b = 0; b < total; b++) {
        while (!done.has(b) && !error) await new Promise<void>((r) => (wake = r));
        if (error) throw error;
        const batch = done.get(b)!;
        done.delete(b);
        dispatch();
        yield batch;
      }
    } finally {
      // Let batches still in flight finish before the next epoch reuses the workers.
      while (outstanding.some((n) => n > 0) && !error) await new Promise<void>((r) => (wake = r));
      this.onReply = null;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { LOADER_DEFAULTS } from '../api/constants.js';
import type { Field } from '../fields/field.js';
import { ownValue, setOwn } from '../format/own-keys.js';
import { registeredFieldModules } from '../fields/registry.js';
import { byteSize, elementCount, viewOf, type OutputArray } from '../pipeline/dtypes.js';
import { Reader } from '../reader/reader.js';
import { Batch, type BatchOutput } from './batch.js';
import { requireSomeBatch } from './drop-last.js';
import { LoaderError } from './errors.js';
import type { MemoryManager, PageHold } from './memory/memory-manager.js';
import { openMemory } from './memory/open-memory.js';
import { RemoteCache, type RemoteCacheOptions } from './memory/remote-cache.js';
import { pagesOfFields } from './memory/sample-pages.js';
import { createOrder, resolveSeed, type OrderFactory, type OrderName, type TraversalOrder } from './orders/index.js';
import { planOutputs, type Output, type PipelineConfig } from './outputs.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol.js';
import { startWorkers } from './start-workers.js';
import { checkState, loaderIdentity, type LoaderIdentity, type LoaderState } from './loader-state.js';
import { checkIndices, effectiveWorkers, MAX_BATCHES_AHEAD } from './option-bounds.js';
import { isNativeAvailable } from '../native/beton-addon.js';
import { gatherRecords } from '../native/gather-records.js';

export type { PipelineConfig };

export interface LoaderOptions {
  batchSize: number;
  /**
   * Decode threads; default = cores. At most max(64, 2 × cores) and one per row of a batch
   * (more would only idle): a larger number is lowered to that (Loader.numWorkers).
   */
  numWorkers?: number;
  /** Default 'sequential', as FFCV's Loader; a LoaderConfig shuffles (LOADER_DEFAULTS says why). */
  order?: OrderName | OrderFactory;
  /** Ordering and augmentation seed; default 0 (distributed) or random. */
  seed?: number;
  /** Sample ids to visit (default all). */
  indices?: ArrayLike<number>;
  /** Drop the last partial batch (default true, as FFCV). */
  dropLast?: boolean;
  /** Batches decoded ahead of the consumer (default 3, at most 1024); the ring has batchesAhead + 1 slots (never more than the epoch's batches + 1). */
  batchesAhead?: number;
  /** true (default): memory-map the file, the OS caches pages. false: the loader's own bounded page cache. */
  osCache?: boolean;
  /** Size of the process cache's page pool (osCache false); default 1 GiB, at least one batch's pages. */
  processCacheBytes?: number;
  distributed?: { rank: number; worldSize: number };
  /** A remote file (s3://, https://): its page pool, parallel GETs and optional disk cache (docs/remote.md). */
  remote?: Omit<RemoteCacheOptions, 'fields' | 'batchSize'>;
  /**
   * Crop decoders decode JPEGs at a reduced DCT scale (1/2, 1/4, 1/8) where that still
   * covers the output: faster, pixels slightly different from FFCV's. Default false: the
   * batches equal FFCV's byte for byte (docs/loader.md, "Fast decode").
   */
  fastDecode?: boolean;
  /** Per output: steps (a decoder first, else the field's default), null to disable a field, or {source, steps} for an extra output. */
  pipelines?: Record<string, PipelineConfig>;
  customFields?: Record<string, Field>;
  fieldModules?: string[];
  signal?: AbortSignal;
}

export type { LoaderState };

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

const int = (v: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new LoaderError(
      'BAD_OPTIONS',
      `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got ${String(v)}`,
    );
  return v;
};

/**
 * FFCV's loader in TypeScript. Worker threads decode and augment samples straight into
 * shared-memory batch slots (a ring of batchesAhead + 1); only batch and slot numbers
 * cross postMessage. `for await (const batch of loader)` runs one epoch.
 */
export class Loader {
  readonly batchSize: number;
  readonly length: number;
  /** Worker threads actually started (numWorkers lowered to the bound in LoaderOptions.numWorkers). */
  readonly numWorkers: number;
  readonly outputNames: string[];
  private nextEpoch = 0;
  private startBatch = 0;
  private current: { epoch: number; held: number } | null = null;
  private closed = false;
  private failure: Error | null = null;
  private readonly slotsCount: number;
  private readonly cheapBatches: boolean;
  /**
   * Every output is a plain copy of metadata bytes and the addon is there: batches are
   * gathered on the consumer's thread, one native call per output, with no worker round trip
   * (two postMessages, two wake-ups: most of a tabular batch's cost, and what contention
   * stretches). BETON_INLINE_GATHER=0 forces the worker path (A/B benchmarks, tests).
   */
  private readonly inlineGather: boolean;
  /** The next epoch's order, asked of worker 0 (inline gather with a built-in order: WorkerInit.order). */
  private nextOrder: { epoch: number; buf: SharedArrayBuffer } | null = null;
  private readonly prefetchOrders: boolean;
  private readonly statsData: LoaderStats = { batches: 0, waitMs: [], workerBusyMs: 0, pagesRead: 0, ordersPrefetched: 0 };
  private onReply: ((w: number, r: WorkerReply) => void) | null = null;
  /** Wakes the running iteration (close() during for-await ends it). */
  private wakeIteration: (() => void) | null = null;
  /** What resume() checks a state against; computed on first use (it hashes the allocation table). */
  private identityCache: LoaderIdentity | null = null;

  private constructor(
    readonly path: string,
    readonly reader: Reader,
    private readonly opts: Required<Pick<LoaderOptions, 'dropLast' | 'batchesAhead' | 'osCache'>> & LoaderOptions,
    readonly seed: number,
    private readonly order: TraversalOrder,
    /** Epoch 0's order, computed by open() for the length; the first epoch reuses it. */
    private firstOrder: Uint32Array | null,
    private readonly outputs: Output[],
    private readonly workers: Worker[],
    private readonly memory: MemoryManager,
    private readonly claims: Int32Array,
    /** Rows per ring slot: batchSize, or the epoch's sample count when a batch is larger (one batch then). */
    private readonly slotRows: number,
    /** Ring slots (batchesAhead + 1, at most the epoch's batches + 1). */
    slots: number,
    private readonly orderName: string,
  ) {
    this.batchSize = opts.batchSize;
    this.length = batchesPerEpoch(firstOrder!.length, opts.batchSize, opts.dropLast);
    this.numWorkers = workers.length;
    this.outputNames = outputs.map((o) => o.plan.name);
    this.slotsCount = slots;
    this.cheapBatches = outputs.every((o) => o.cheapRows);
    this.inlineGather = inlineGather(outputs);
    this.prefetchOrders = this.inlineGather && typeof opts.order !== 'function' && workers.length > 0;
    workers.forEach((w, i) => {
      w.on('message', (r: WorkerReply) => this.onReply?.(i, r));
      w.on('error', (e) => this.fail(new LoaderError('WORKER_FAILED', `a loader worker failed: ${e.message}`)));
      w.on('exit', (code) => {
        if (!this.closed && code !== 0) this.fail(new LoaderError('WORKER_FAILED', `a loader worker exited with code ${code}`));
      });
    });
    this.holdProcess(false);
  }

  /**
   * Idle workers must not keep Node alive: a script that iterates a loader and does nothing
   * else exits after its last batch, as with FFCV or PyTorch's DataLoader, without close().
   * The threads stay (no start-up cost next epoch); only their hold on the event loop goes.
   */
  private holdProcess(hold: boolean): void {
    for (const w of this.workers) {
      if (hold) w.ref();
      else w.unref();
    }
  }

  static async open(path: string, options: LoaderOptions): Promise<Loader> {
    if (options === null || typeof options !== 'object')
      throw new LoaderError('BAD_OPTIONS', `options must be an object, got ${String(options)}`);
    const batchSize = int(options.batchSize, 'batchSize', 1, 2 ** 32 - 1);
    const requestedWorkers = int(options.numWorkers ?? availableParallelism(), 'numWorkers', 1);
    const batchesAhead = int(options.batchesAhead ?? LOADER_DEFAULTS.batchesAhead, 'batchesAhead', 1, MAX_BATCHES_AHEAD);
    const osCache = options.osCache ?? LOADER_DEFAULTS.osCache;
    const cacheBytes = options.processCacheBytes;
    if (cacheBytes !== undefined && (typeof cacheBytes !== 'number' || !Number.isFinite(cacheBytes) || cacheBytes < 0))
      throw new LoaderError('BAD_OPTIONS', `processCacheBytes must be a number of bytes >= 0, got ${String(cacheBytes)}`);
    const dropLast = options.dropLast ?? LOADER_DEFAULTS.dropLast;
    const reader = await Reader.open(path, { customFields: options.customFields });
    let workers: Worker[] = [];
    let memory: MemoryManager | null = null;
    try {
      const indices = sampleIndices(options.indices, reader.numSamples, path);
      const seed = options.seed ?? resolveSeed(undefined, { distributed: Boolean(options.distributed), random: Math.random });
      const order = createOrder(options.order ?? LOADER_DEFAULTS.libraryOrder, {
        indices,
        seed,
        batchSize,
        ...(options.distributed ? { distributed: options.distributed } : {}),
        // Page-aware orders group samples by the pages of every field.
        pagesOfSample: pagesOfFields(
          reader,
          reader.fields.map((_, f) => f),
        ),
      });
      const firstOrder = order.sampleOrder(0);
      requireSomeBatch(firstOrder.length, batchSize, dropLast, path);
      // A batch larger than the epoch (batchSize 1e9 on 12 samples) is one batch of the
      // epoch's samples: the ring holds that many rows, not batchSize. Slots past the
      // epoch's batches would never be filled.
      const slotRows = Math.max(1, Math.min(batchSize, firstOrder.length));
      const slots = Math.min(batchesAhead, Math.max(1, batchesPerEpoch(firstOrder.length, batchSize, dropLast))) + 1;
      const outputs = planOutputs(reader, options.pipelines ?? {}, slotRows, slots);
      const fields = [...new Set(outputs.map((o) => o.plan.field))];
      // A remote file has no local bytes to map: its own page pool, whatever osCache says.
      memory = reader.remote
        ? new RemoteCache(reader, reader.remote, { ...options.remote, fields, batchSize: slotRows })
        : await openMemory(osCache, path, reader, {
            fields,
            batchSize: slotRows,
            ...(options.processCacheBytes !== undefined ? { bytes: options.processCacheBytes } : {}),
          });
      const claims = new SharedArrayBuffer(4 * slots);
      let orderPlan: WorkerInit['order'];
      if (inlineGather(outputs) && typeof options.order !== 'function') {
        const shared = new SharedArrayBuffer(Math.max(4, indices.byteLength));
        new Uint32Array(shared).set(indices);
        orderPlan = {
          name: options.order ?? LOADER_DEFAULTS.libraryOrder,
          seed,
          batchSize,
          indices: shared,
          ...(options.distributed ? { distributed: options.distributed } : {}),
        };
      }
      const init: WorkerInit = {
        ...(orderPlan ? { order: orderPlan } : {}),
        claims,
        path,
        customFields: Object.entries(options.customFields ?? {}).map(([name, f]) => ({ name, spec: f.toSpec() })),
        fieldModules: registeredFieldModules(options.fieldModules),
        outputs: outputs.map((o) => o.plan),
        // Workers index the order by batch × batchSize and the ring by slot × batchSize: with
        // rows clamped there is one batch (batch 0), so both agree with slotRows.
        batchSize: slotRows,
        seed,
        memory: memory.plan,
        ...(reader.remote ? { remote: reader.remote.snapshot } : {}),
        fastDecode: options.fastDecode ?? false,
      };
      workers = await startWorkers(effectiveWorkers(requestedWorkers, slotRows), init);
      return new Loader(
        path,
        reader,
        { ...options, dropLast, batchesAhead, osCache },
        seed,
        order,
        firstOrder,
        outputs,
        workers,
        memory,
        new Int32Array(claims),
        slotRows,
        slots,
        typeof options.order === 'function'
          ? `custom:${options.order.name || 'anonymous'}`
          : (options.order ?? LOADER_DEFAULTS.libraryOrder),
      );
    } catch (e) {
      await Promise.all(workers.map((w) => w.terminate()));
      await memory?.close();
      reader.close();
      throw e;
    }
  }

  /**
   * FFCV's Loader.filter: a new loader over the samples whose `output` row satisfies
   * `condition`. The rows come from a temporary pass with only that output enabled (its
   * pipeline as configured here, or the field's default), sequential order, every batch
   * kept; the new loader has this one's options (seed included) with `indices` = the
   * sample ids kept, in the order they were visited. Unlike FFCV, which collects positions
   * in the sequential order, these are real sample ids, so `indices` and distributed
   * loaders filter correctly: the pass covers every rank's samples, and the new loader
   * partitions the kept ids between ranks as usual. This loader stays open.
   */
  async filter(output: string, condition: (row: OutputArray, sampleId: number) => boolean): Promise<Loader> {
    if (!this.outputNames.includes(output))
      throw new LoaderError('BAD_OPTIONS', `filter: no output "${output}" (outputs: ${this.outputNames.join(', ')})`);
    if (typeof condition !== 'function')
      throw new LoaderError('BAD_OPTIONS', 'filter: condition must be a function (row, sampleId) => boolean');
    const { distributed: _distributed, signal, pipelines = {}, ...rest } = this.opts;
    // Only `output` stays enabled: other file fields off, other extra outputs left out.
    const only: Record<string, PipelineConfig> = {};
    for (const f of this.reader.fields) if (f.name !== output) setOwn(only, f.name, null);
    const own = ownValue(pipelines, output) as PipelineConfig | undefined;
    if (own !== undefined) setOwn(only, output, own);
    const indices = this.opts.indices ?? Array.from({ length: this.reader.numSamples }, (_, i) => i);
    const pass = await Loader.open(this.path, {
      ...rest,
      indices,
      order: 'sequential',
      dropLast: false,
      seed: this.seed,
      pipelines: only,
      ...(signal ? { signal } : {}),
    });
    const kept: number[] = [];
    try {
      for await (const batch of pass) {
        const o = batch.get(output);
        const per = o.data.length / batch.size;
        batch.sampleIds.forEach((id, j) => {
          if (condition(o.data.subarray(j * per, (j + 1) * per) as OutputArray, id)) kept.push(id);
        });
      }
    } finally {
      await pass.close();
    }
    if (kept.length === 0) throw new LoaderError('BAD_OPTIONS', `filter: no sample of ${this.path} satisfies the condition on "${output}"`);
    return Loader.open(this.path, { ...this.opts, seed: this.seed, indices: kept });
  }

  /** The next epoch number an iteration will run. */
  get epoch(): number {
    return this.current ? this.current.epoch : this.nextEpoch;
  }

  /** What a state of this loader carries to identify it: the file's content, batch size, order, seed, samples. */
  private identity(): LoaderIdentity {
    this.identityCache ??= loaderIdentity({
      path: this.path,
      metadata: this.reader.metadata,
      batchSize: this.batchSize,
      order: this.orderName,
      seed: this.seed,
      length: this.length,
      indices: this.opts.indices,
      ...(this.opts.distributed ? { distributed: this.opts.distributed } : {}),
    });
    return this.identityCache;
  }

  state(): LoaderState {
    const at = this.current
      ? { epoch: this.current.epoch, batch: this.current.held + 1 }
      : { epoch: this.nextEpoch, batch: this.startBatch };
    return { ...at, seed: this.seed, loader: this.identity() };
  }

  /**
   * Continue from a saved state: the next iteration yields exactly the remaining batches. A
   * state saved by another loader (another file or content, batch size, order, seed, sample
   * set) or with an impossible batch is refused with a FOREIGN_STATE naming the difference.
   */
  resume(state: LoaderState): void {
    if (this.current) throw new LoaderError('BAD_OPTIONS', 'resume() while an epoch is being iterated; finish or break out of it first');
    const { epoch, batch } = checkState(state, this.identity(), this.path);
    this.nextEpoch = epoch;
    this.startBatch = batch;
  }

  stats(): LoaderStats {
    const stageMs = this.statsData.stageMs;
    return {
      ...this.statsData,
      waitMs: [...this.statsData.waitMs],
      pagesRead: this.memory.pagesRead,
      ...(stageMs ? { stageMs: { ...stageMs } } : {}),
    };
  }

  private fail(e: Error): void {
    if (!this.failure) this.failure = e;
    void this.close();
    this.onReply?.(-1, { type: 'error', batch: -1, sample: -1, output: -1, code: 'WORKER_FAILED', message: e.message });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // An iteration waiting for a batch ends now (its loop exits; code after it runs).
    this.wakeIteration?.();
    await Promise.all(this.workers.map((w) => w.terminate()));
    await this.memory.close();
    this.reader.close();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Batch> {
    return this.runEpoch();
  }

  private async *runEpoch(): AsyncGenerator<Batch> {
    if (this.closed) throw this.failure ?? new LoaderError('CLOSED', 'the loader is closed');
    if (this.current) throw new LoaderError('BAD_OPTIONS', 'an epoch is already being iterated; one iteration at a time per loader');
    const epoch = this.nextEpoch;
    const start = this.startBatch;
    this.nextEpoch = epoch + 1;
    this.startBatch = 0;
    const bs = this.batchSize;
    const full = epoch === 0 && this.firstOrder ? this.firstOrder : (this.prefetchedOrder(epoch) ?? this.order.sampleOrder(epoch));
    this.firstOrder = null;
    if (this.prefetchOrders) this.askOrder(epoch + 1, full.length);
    const total = Math.min(full.length, this.length * bs);
    if (this.inlineGather) {
      yield* this.gatherEpoch(epoch, start, full.subarray(0, total));
      return;
    }
    const orderBuf = new SharedArrayBuffer(Math.max(4, total * 4));
    const order = new Uint32Array(orderBuf);
    order.set(full.subarray(0, total));
    for (const w of this.workers) w.postMessage({ type: 'epoch', epoch, order: orderBuf } satisfies WorkerRequest);

    const S = this.slotsCount;
    const sizeOf = (b: number): number => Math.min(bs, total - b * bs);
    const remaining = new Map<number, number>();
    const held = new Map<number, PageHold>();
    const ready = new Set<number>();
    let releasedUpTo = start;
    let nextDispatch = start;
    let wake: (() => void) | null = null;
    let error: Error | null = null;
    const notify = (): void => {
      const w = wake;
      wake = null;
      w?.();
    };
    this.wakeIteration = notify;
    /** close() was called (not a failure): the iteration ends as if the consumer broke out. */
    const closedByUser = (): boolean => this.closed && !this.failure;

    this.onReply = (_w, r) => {
      if (r.type === 'done') {
        this.statsData.workerBusyMs += r.busyMs;
        if (r.stageMs) {
          const into = (this.statsData.stageMs ??= {});
          for (const [k, v] of Object.entries(r.stageMs)) into[k] = (into[k] ?? 0) + v;
        }
        const left = (remaining.get(r.batch) ?? 1) - 1;
        remaining.set(r.batch, left);
        if (left === 0) {
          remaining.delete(r.batch);
          held.get(r.batch)?.release();
          held.delete(r.batch);
          ready.add(r.batch);
          notify();
        }
      } else if (r.type === 'error') {
        error ??= r.sample >= 0 ? this.corruptSample(r) : (this.failure ?? new LoaderError('WORKER_FAILED', r.message));
        notify();
      }
    };

    // Dispatch batches while ring slots are free, each once its pages are held.
    let pumping = false;
    const pump = async (): Promise<void> => {
      if (pumping) return;
      pumping = true;
      try {
        while (!error && !this.closed && nextDispatch < this.length && nextDispatch < releasedUpTo + S) {
          const b = nextDispatch++;
          const n = sizeOf(b);
          const pending = this.memory.hold(order.subarray(b * bs, b * bs + n));
          const hold = pending instanceof Promise ? await pending : pending;
          if (error || this.closed) {
            // The iteration ended while the pages were loading: dispatch nothing more.
            hold.release();
            return;
          }
          held.set(b, hold);
          // Every worker works on the batch, claiming rows from the slot's counter; the
          // batch is done when all of them have answered. The slot's last user has finished
          // (its batch was released), so the counter can be reset.
          // Rows that cost nanoseconds (tabular files) are not worth a second worker's
          // message round trip: one worker takes the batch, the next batch goes to the next.
          const parts = this.cheapBatches ? 1 : Math.min(this.workers.length, n);
          remaining.set(b, parts);
          Atomics.store(this.claims, b % S, 0);
          for (let p = 0; p < parts; p++) {
            this.workers[(b + p) % this.workers.length]!.postMessage({
              type: 'job',
              epoch,
              batch: b,
              slot: b % S,
              size: n,
            } satisfies WorkerRequest);
          }
        }
      } catch (e) {
        error ??= e as Error;
        notify();
      } finally {
        pumping = false;
      }
    };

    this.current = { epoch, held: start - 1 };
    this.holdProcess(true);
    try {
      for (let b = start; b < this.length; b++) {
        if (closedByUser()) return;
        releasedUpTo = b;
        this.current.held = b - 1;
        void pump();
        const t0 = performance.now();
        while (!ready.has(b) && !error) {
          await new Promise<void>((r) => {
            const onAbort = (): void => r();
            wake = () => {
              this.opts.signal?.removeEventListener('abort', onAbort);
              r();
            };
            this.opts.signal?.addEventListener('abort', onAbort, { once: true });
          });
          this.opts.signal?.throwIfAborted();
          if (closedByUser()) return;
          void pump();
        }
        if (error) throw error;
        ready.delete(b);
        this.statsData.waitMs.push(performance.now() - t0);
        this.statsData.batches++;
        this.current.held = b;
        yield this.makeBatch(epoch, b, order.subarray(b * bs, b * bs + sizeOf(b)));
      }
    } catch (e) {
      if ((e as LoaderError).code === 'CORRUPT_SAMPLE' || (e as LoaderError).code === 'WORKER_FAILED') await this.close();
      throw e;
    } finally {
      // Broke out mid-epoch: remember where, for state()/resume().
      if (this.current && this.current.held + 1 < this.length) {
        this.nextEpoch = epoch;
        this.startBatch = this.current.held + 1;
      }
      this.current = null;
      // Stop dispatching, and let in-flight jobs drain before the next epoch reuses the slots.
      error ??= new LoaderError('CLOSED', 'iteration ended');
      while (remaining.size > 0 && !this.closed) await new Promise<void>((r) => ((wake = r), setTimeout(r, 50)));
      this.onReply = null;
      this.wakeIteration = null;
      for (const hold of held.values()) hold.release();
      this.holdProcess(false);
    }
  }

  /** Asks worker 0 for epoch `epoch`'s order (it is idle on the inline path: one core computes it while this one gathers). */
  private askOrder(epoch: number, length: number): void {
    const buf = new SharedArrayBuffer(8 + 4 * length);
    this.nextOrder = { epoch, buf };
    this.workers[0]!.postMessage({ type: 'order', epoch, into: buf } satisfies WorkerRequest);
  }

  /** The order worker 0 finished for `epoch`, or null (not asked, another epoch, not done yet, failed): then computed here. */
  private prefetchedOrder(epoch: number): Uint32Array | null {
    const p = this.nextOrder;
    this.nextOrder = null;
    if (!p || p.epoch !== epoch) return null;
    const state = new Int32Array(p.buf, 0, 2);
    if (Atomics.load(state, 0) !== 1) return null;
    this.statsData.ordersPrefetched++;
    return new Uint32Array(p.buf, 8, Atomics.load(state, 1));
  }

  /**
   * An epoch of cheap rows on this thread: each batch gathered into its ring slot when the
   * consumer asks for it (the slot of the previous batch stays untouched, as on the worker
   * path, which reuses a slot only after its batch is released).
   */
  private async *gatherEpoch(epoch: number, start: number, order: Uint32Array): AsyncGenerator<Batch> {
    const bs = this.batchSize;
    const S = this.slotsCount;
    const meta = this.reader.metadata;
    const stride = this.reader.recordLayout.size;
    const rows = this.outputs.map((o) => ({
      from: this.reader.recordLayout.offsets[o.plan.field]!,
      bytes: o.copyBytes,
      rowBytes: byteSize(o.plan.sampleOutput),
      ring: new Uint8Array(o.plan.ring),
    }));
    this.current = { epoch, held: start - 1 };
    try {
      for (let b = start; b < this.length; b++) {
        if (this.closed) {
          if (this.failure) throw this.failure;
          return;
        }
        this.opts.signal?.throwIfAborted();
        const t0 = performance.now();
        const ids = order.subarray(b * bs, Math.min(order.length, b * bs + bs));
        const slot = b % S;
        for (const r of rows) gatherRecords(meta, stride, r.from, r.bytes, ids, r.ring, slot * this.slotRows * r.rowBytes);
        this.statsData.waitMs.push(performance.now() - t0);
        this.statsData.batches++;
        this.current.held = b;
        yield this.makeBatch(epoch, b, ids);
      }
    } finally {
      // Broke out mid-epoch: remember where, for state()/resume().
      if (this.current && this.current.held + 1 < this.length) {
        this.nextEpoch = epoch;
        this.startBatch = this.current.held + 1;
      }
      this.current = null;
    }
  }

  /** A worker's decode failure, naming the sample and the file's field its output reads (an extra output names its source). */
  private corruptSample(r: Extract<WorkerReply, { type: 'error' }>): LoaderError {
    const failed = this.outputs[r.output];
    const field = failed ? this.reader.fields[failed.plan.field]?.name : undefined;
    return new LoaderError(
      'CORRUPT_SAMPLE',
      `${this.path}: sample ${r.sample} could not be decoded (${r.message}); the file is corrupt there — rebuild it, or exclude the sample with indices`,
      { sample: r.sample, batch: r.batch, ...(field ? { field } : {}) },
    );
  }

  private makeBatch(epoch: number, b: number, ids: Uint32Array): Batch {
    const n = ids.length;
    const S = this.slotsCount;
    const slot = b % S;
    const outputs: Record<string, BatchOutput> = {};
    for (const o of this.outputs) {
      const row = elementCount(o.plan.sampleOutput);
      const rowBytes = byteSize(o.plan.sampleOutput);
      let data = viewOf(o.plan.sampleOutput.dtype, o.plan.ring, slot * this.slotRows * rowBytes, n * row);
      for (const [k, st] of o.batchStages.entries()) {
        const dst = o.batchBuffers[k * S + slot]!;
        const out = dst.subarray(0, n * elementCount(st.output)) as OutputArray;
        st.run(data, out, n, { seed: this.seed, epoch, batchIndex: b });
        data = out;
      }
      setOwn(outputs, o.plan.name, { data, shape: [n, ...o.spec.shape], dtype: o.spec.dtype });
    }
    return new Batch(epoch, b, ids.slice(), outputs);
  }
}

/** Every output a plain copy of metadata bytes, and the addon there: batches are gathered on the consumer's thread. */
function inlineGather(outputs: readonly Output[]): boolean {
  return outputs.every((o) => o.cheapRows) && process.env.BETON_INLINE_GATHER !== '0' && isNativeAvailable();
}

/** Batches in an epoch of `samples` samples. */
function batchesPerEpoch(samples: number, batchSize: number, dropLast: boolean): number {
  return dropLast ? Math.floor(samples / batchSize) : Math.ceil(samples / batchSize);
}

/** The sample ids to visit: `indices` checked against the file (integers in range, before any u32 conversion), or every id. */
function sampleIndices(given: ArrayLike<number> | undefined, numSamples: number, path: string): Uint32Array {
  if (given !== undefined) return checkIndices(given, numSamples, path);
  // A plain loop: Uint32Array.from with a map function is ~10x slower on a million ids.
  const ids = new Uint32Array(numSamples);
  for (let i = 0; i < numSamples; i++) ids[i] = i;
  return ids;
}

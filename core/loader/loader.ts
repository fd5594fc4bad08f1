import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { LOADER_DEFAULTS } from '../api/constants.js';
import { ownValue, setOwn } from '../format/own-keys.js';
import { registeredFieldModules } from '../fields/registry.js';
import type { OutputArray } from '../pipeline/dtypes.js';
import { Reader } from '../reader/reader.js';
import type { Batch } from './batch.js';
import { batchesPerEpoch, requireSomeBatch } from './drop-last.js';
import { EpochCursor } from './epoch-cursor.js';
import { type EpochLoader, type LoaderLife, WorkerEpoch } from './epoch-run.js';
import { LoaderError } from './errors.js';
import { gatherEpoch } from './gather-epoch.js';
import type { LoaderOptions } from './loader-options.js';
import type { LoaderStats } from './loader-stats.js';
import type { MemoryManager } from './memory/memory-manager.js';
import { openMemory } from './memory/open-memory.js';
import { RemoteCache } from './memory/remote-cache.js';
import { pagesOfFields } from './memory/sample-pages.js';
import { OrderPrefetch } from './order-prefetch.js';
import { createOrder, resolveSeed, type TraversalOrder } from './orders/index.js';
import { planOutputs, type Output, type PipelineConfig } from './outputs.js';
import type { WorkerInit, WorkerReply } from './protocol.js';
import { BatchRing } from './ring.js';
import { startWorkers } from './start-workers.js';
import { checkState, loaderIdentity, type LoaderIdentity, type LoaderState } from './loader-state.js';
import { checkIndices, effectiveWorkers, intOption, MAX_BATCHES_AHEAD } from './option-bounds.js';
import { isNativeAvailable } from '../native/beton-addon.js';

export type { PipelineConfig };

export type { LoaderOptions };

export type { LoaderState };

export type { LoaderStats };

/**
 * FFCV's loader in TypeScript. Worker threads decode and augment samples straight into
 * shared-memory batch slots (a ring of batchesAhead + 1); only batch and slot numbers
 * cross postMessage. `for await (const batch of loader)` runs one epoch.
 */
export class Loader {
  readonly batchSize: number;
  readonly length: number;
  /** Worker threads actually started (numWorkers lowered to the bound in LoaderOptions.numWorkers; 1 for an inline gather). */
  readonly numWorkers: number;
  readonly outputNames: string[];
  /** Where iteration stands (the epoch being iterated, or where the next starts). */
  private readonly cursor = new EpochCursor();
  private readonly life: LoaderLife = { closed: false, failure: null };
  private readonly ring: BatchRing;
  /**
   * Every output is a plain copy of metadata bytes and the addon is there: batches are
   * gathered on the consumer's thread, one native call per output, with no worker round trip
   * (two postMessages, two wake-ups: most of a tabular batch's cost, and what contention
   * stretches). BETON_INLINE_GATHER=0 forces the worker path (A/B benchmarks, tests).
   */
  private readonly inlineGather: boolean;
  /** The next epoch's order, asked of worker 0 (inline gather with a built-in order); null otherwise. */
  private readonly prefetch: OrderPrefetch | null;
  private readonly statsData: LoaderStats = { batches: 0, waitMs: [], workerBusyMs: 0, pagesRead: 0, ordersPrefetched: 0 };
  /** The worker path's running epoch: gets the workers' replies; close() wakes it. */
  private running: WorkerEpoch | null = null;
  /** What an epoch run uses of this loader (epoch-run.ts, gather-epoch.ts). */
  private readonly epochs: EpochLoader;
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
    claims: Int32Array,
    /** Rows per ring slot: batchSize, or the epoch's sample count when a batch is larger (one batch then). */
    slotRows: number,
    /** Ring slots (batchesAhead + 1, at most the epoch's batches + 1). */
    slots: number,
    private readonly orderName: string,
  ) {
    this.batchSize = opts.batchSize;
    this.length = batchesPerEpoch(firstOrder!.length, opts.batchSize, opts.dropLast);
    this.numWorkers = workers.length;
    this.outputNames = outputs.map((o) => o.plan.name);
    this.ring = new BatchRing(outputs, slots, slotRows, seed);
    this.inlineGather = inlineGather(outputs);
    this.prefetch =
      this.inlineGather && typeof opts.order !== 'function' && workers.length > 0 ? new OrderPrefetch(workers[0]!, this.statsData) : null;
    this.epochs = {
      length: this.length,
      batchSize: this.batchSize,
      workers,
      memory,
      claims,
      cheapBatches: outputs.every((o) => o.cheapRows),
      ring: this.ring,
      stats: this.statsData,
      cursor: this.cursor,
      life: this.life,
      signal: opts.signal,
      reader,
      close: () => this.close(),
      corruptSample: (r) => this.corruptSample(r),
      begin: () => this.beginEpoch(),
      attach: (run) => this.attach(run),
    };
    workers.forEach((w) => {
      w.on('message', (r: WorkerReply) => this.running?.onReply(r));
      w.on('error', (e) => this.fail(new LoaderError('WORKER_FAILED', `a loader worker failed: ${e.message}`)));
      w.on('exit', (code) => {
        if (!this.life.closed && code !== 0) this.fail(new LoaderError('WORKER_FAILED', `a loader worker exited with code ${code}`));
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
    const batchSize = intOption(options.batchSize, 'batchSize', 1, 2 ** 32 - 1);
    const requestedWorkers = intOption(options.numWorkers ?? availableParallelism(), 'numWorkers', 1);
    const batchesAhead = intOption(options.batchesAhead ?? LOADER_DEFAULTS.batchesAhead, 'batchesAhead', 1, MAX_BATCHES_AHEAD);
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
      const inline = inlineGather(outputs);
      if (inline && typeof options.order !== 'function') {
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
      // An inline gather needs one worker (orders ahead); idle ones would each load ~110 modules.
      workers = await startWorkers(inline ? 1 : effectiveWorkers(requestedWorkers, slotRows), init);
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
    const { current, nextEpoch } = this.cursor;
    return current ? current.epoch : nextEpoch;
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
    const { current, nextEpoch, startBatch } = this.cursor;
    const at = current ? { epoch: current.epoch, batch: current.held + 1 } : { epoch: nextEpoch, batch: startBatch };
    return { ...at, seed: this.seed, loader: this.identity() };
  }

  /**
   * Continue from a saved state: the next iteration yields exactly the remaining batches. A
   * state saved by another loader (another file or content, batch size, order, seed, sample
   * set) or with an impossible batch is refused with a FOREIGN_STATE naming the difference.
   */
  resume(state: LoaderState): void {
    if (this.cursor.current)
      throw new LoaderError('BAD_OPTIONS', 'resume() while an epoch is being iterated; finish or break out of it first');
    const { epoch, batch } = checkState(state, this.identity(), this.path);
    this.cursor.nextEpoch = epoch;
    this.cursor.startBatch = batch;
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
    if (!this.life.failure) this.life.failure = e;
    void this.close();
    this.running?.onReply({ type: 'error', batch: -1, sample: -1, output: -1, code: 'WORKER_FAILED', message: e.message });
  }

  async close(): Promise<void> {
    if (this.life.closed) return;
    this.life.closed = true;
    // An iteration waiting for a batch ends now (its loop exits; code after it runs).
    this.running?.notify();
    await Promise.all(this.workers.map((w) => w.terminate()));
    await this.memory.close();
    this.reader.close();
  }

  /** One epoch (the next, or where resume() or a break left off): epoch-run.ts on the workers, gather-epoch.ts inline. */
  [Symbol.asyncIterator](): AsyncIterableIterator<Batch> {
    return this.inlineGather ? gatherEpoch(this.epochs) : new WorkerEpoch(this.epochs).batches();
  }

  /** EpochLoader.begin: an iteration's first next(). */
  private beginEpoch(): { epoch: number; start: number; ids: Uint32Array } {
    if (this.life.closed) throw this.life.failure ?? new LoaderError('CLOSED', 'the loader is closed');
    if (this.cursor.current) throw new LoaderError('BAD_OPTIONS', 'an epoch is already being iterated; one iteration at a time per loader');
    const { epoch, start } = this.cursor.take();
    let full = epoch === 0 && this.firstOrder ? this.firstOrder : (this.prefetch?.take(epoch) ?? this.order.sampleOrder(epoch));
    this.firstOrder = null;
    // Batches hand out views of the epoch's order as their sampleIds (no copy per batch):
    // a caller's own order function may reuse or change its array, so the loader keeps a copy.
    if (typeof this.opts.order === 'function') full = full.slice();
    this.prefetch?.ask(epoch + 1, full.length);
    return { epoch, start, ids: full.subarray(0, Math.min(full.length, this.length * this.batchSize)) };
  }

  /** EpochLoader.attach: the running worker epoch gets the replies; the workers hold the process while it runs. */
  private attach(run: WorkerEpoch | null): void {
    this.running = run;
    this.holdProcess(run !== null);
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
}

/** Every output a plain copy of metadata bytes, and the addon there: batches are gathered on the consumer's thread. */
function inlineGather(outputs: readonly Output[]): boolean {
  return outputs.every((o) => o.cheapRows) && process.env.BETON_INLINE_GATHER !== '0' && isNativeAvailable();
}

/** The sample ids to visit: `indices` checked against the file (integers in range, before any u32 conversion), or every id. */
function sampleIndices(given: ArrayLike<number> | undefined, numSamples: number, path: string): Uint32Array {
  if (given !== undefined) return checkIndices(given, numSamples, path);
  // A plain loop: Uint32Array.from with a map function is ~10x slower on a million ids.
  const ids = new Uint32Array(numSamples);
  for (let i = 0; i < numSamples; i++) ids[i] = i;
  return ids;
}

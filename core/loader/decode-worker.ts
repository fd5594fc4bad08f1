/**
 * Loader worker: decodes and augments its share of each batch straight into the shared
 * batch slot. Messages carry batch and slot numbers only; sample ids come from the shared
 * epoch order, bytes from the memory-mapped file or the shared page pool.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fieldFromSpec } from '../fields/registry.js';
import type { Field } from '../fields/field.js';
import { byteSize, elementCount, viewOf, type ElementType, type OutputArray } from '../pipeline/dtypes.js';
import { planStages } from '../pipeline/plan.js';
import { rngFor } from '../pipeline/rng.js';
import type { SampleStage } from '../pipeline/stage.js';
import { Reader } from '../reader/reader.js';
import { gatherRecords } from '../native/gather-records.js';
import { isNativeAvailable } from '../native/beton-addon.js';
import { mapPixels } from '../native/pixel-map.js';
import { createDecoder, type Decoder } from './decoders.js';
import { heapAccess, type HeapAccess } from './memory/heap-access.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol.js';
import { setOwn } from '../format/own-keys.js';
import { createOrder, type TraversalOrder } from './orders/index.js';
import { pagesOfFields } from './memory/sample-pages.js';

const init = workerData as WorkerInit;
for (const m of init.fieldModules) await import(m);
const custom: Record<string, Field> = {};
for (const { name, spec } of init.customFields) setOwn(custom, name, fieldFromSpec(spec));
const reader = init.remote
  ? Reader.fromSnapshot(init.remote, { customFields: custom })
  : Reader.openSync(init.path, { customFields: custom });
const heap: HeapAccess = heapAccess(init.memory, init.path, reader.pageSize);

interface Runner {
  field: number;
  decoder: Decoder;
  stages: SampleStage[];
  /** The last stage that writes a new tensor (-1: none, so the decoder writes the slot row). */
  lastCopy: number;
  /** scratch[k] holds the input of stage k (scratch[0] = decoder output). */
  scratch: OutputArray[];
  ring: SharedArrayBuffer;
  rowBytes: number;
  rowLength: number;
  dtype: ElementType;
  /** Decoders whose row is the metadata member's first bytes: where the field sits in a record, and how many bytes. */
  copy: { from: number; bytes: number } | null;
  ringBytes: Uint8Array;
}

// The fused pixel pass runs in C++ when the addon loads; BETON_PIXEL_KERNEL=js forces the
// JS pass (same bytes; for A/B benchmarks and for debugging).
const pixelKernel = process.env.BETON_PIXEL_KERNEL !== 'js' && isNativeAvailable() ? mapPixels : undefined;

const runners: Runner[] = init.outputs.map((o) => {
  const field = reader.fields[o.field]!.field;
  const decoder = createDecoder(o.decoder, field, o.stats, { fastDecode: init.fastDecode });
  const plan = planStages(decoder.output, o.ops, pixelKernel);
  // One scratch buffer per intermediate tensor; the last stage writes into the slot.
  const specs = [decoder.output, ...plan.stages.map((s) => s.output)];
  const scratch = specs.map((s) => viewOf(s.dtype, new ArrayBuffer(byteSize(s)), 0, elementCount(s)));
  const copy =
    decoder.copiesMetadata && plan.stages.length === 0
      ? { from: reader.recordLayout.offsets[o.field]!, bytes: decoder.copiesMetadata }
      : null;
  return {
    field: o.field,
    decoder,
    stages: plan.stages,
    lastCopy: plan.stages.findLastIndex((s) => !s.inPlace),
    scratch,
    ring: o.ring,
    rowBytes: byteSize(plan.sampleOutput),
    rowLength: elementCount(plan.sampleOutput),
    dtype: plan.sampleOutput.dtype,
    copy,
    ringBytes: new Uint8Array(o.ring),
  };
});
const allCopies = runners.every((r) => r.copy !== null);
const metaBytes = reader.metadata;
const recordSize = reader.recordLayout.size;

let order: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
const claims = new Int32Array(init.claims);

/**
 * Per-stage time of this batch (ms), summed over its samples: "read" (finding the sample's
 * bytes: metadata, the heap reference, a page from the process cache), "decode" (the decoder,
 * with the ops fused into its pixel pass), then each stage by name. A few performance.now()
 * per sample, against a decode of about a millisecond. What the rest of busyMs is — copies of
 * plain fields, claiming rows — the main thread books as "copy".
 */
let stageMs: Record<string, number> = {};
const addStage = (name: string, ms: number): void => {
  stageMs[name] = (stageMs[name] ?? 0) + ms;
};

function runSample(r: Runner, sampleId: number, epoch: number, row: OutputArray, outputIndex: number): void {
  const t0 = performance.now();
  const meta = reader.fieldMetadata(sampleId, r.field);
  const ref = reader.heapRef(sampleId, r.field);
  const bytes = ref ? heap.bytes(ref.ptr, ref.size) : null;
  const n = r.stages.length;
  // Decode straight into the slot when no stage follows (or only in-place ones).
  const lastCopy = r.lastCopy;
  let cur: OutputArray = lastCopy < 0 ? row : r.scratch[0]!;
  const t1 = performance.now();
  r.decoder.decode(meta, bytes, cur, rngFor(init.seed, epoch, sampleId, outputIndex * 64));
  let t = performance.now();
  addStage('read', t1 - t0);
  addStage('decode', t - t1);
  for (let k = 0; k < n; k++) {
    const st = r.stages[k]!;
    const ctx = { sampleId, epoch, rng: rngFor(init.seed, epoch, sampleId, outputIndex * 64 + k + 1) };
    if (st.inPlace) st.run(cur, cur, ctx);
    else {
      const next = k === lastCopy ? row : r.scratch[k + 1]!;
      st.run(cur, next, ctx);
      cur = next;
    }
    const u = performance.now();
    addStage(st.name, u - t);
    t = u;
  }
}

// Tabular rows in one native call per batch and output (JS loop as fallback).
const gather = allCopies && process.env.BETON_GATHER !== 'js' && isNativeAvailable();

function gatherRows(r: Runner, slot: number, k0: number, ids: Uint32Array): void {
  failing.sample = ids[0] ?? -1;
  gatherRecords(metaBytes, recordSize, r.copy!.from, r.copy!.bytes, ids, r.ringBytes, (slot * init.batchSize + k0) * r.rowBytes);
}

/** Where the current row is, for the error reply. */
const failing = { sample: -1, output: 0 };

/** Writes row k of the job's slot: every output of sample `sample`. */
function runRow(msg: { epoch: number; slot: number }, k: number, sample: number): void {
  failing.sample = sample;
  for (let output = 0; output < runners.length; output++) {
    failing.output = output;
    const r = runners[output]!;
    const at = (msg.slot * init.batchSize + k) * r.rowBytes;
    if (r.copy) {
      const src = sample * recordSize + r.copy.from;
      for (let j = 0; j < r.copy.bytes; j++) r.ringBytes[at + j] = metaBytes[src + j]!;
    } else {
      runSample(r, sample, msg.epoch, viewOf(r.dtype, r.ring, at, r.rowLength), output);
    }
  }
}

let nextOrders: TraversalOrder | null = null;

/** The next epoch's order, computed while the consumer's thread runs the current one (protocol.ts, 'order'). */
function prefetchOrder(msg: Extract<WorkerRequest, { type: 'order' }>): void {
  const state = new Int32Array(msg.into, 0, 2);
  try {
    const plan = init.order!;
    nextOrders ??= createOrder(plan.name, {
      indices: new Uint32Array(plan.indices),
      seed: plan.seed,
      batchSize: plan.batchSize,
      ...(plan.distributed ? { distributed: plan.distributed } : {}),
      pagesOfSample: pagesOfFields(
        reader,
        reader.fields.map((_, f) => f),
      ),
    });
    // In place when the strategy can (no 5 MB array and copy per epoch); else a copy.
    const into = new Uint32Array(msg.into, 8, (msg.into.byteLength - 8) >> 2);
    let length = into.length;
    if (!nextOrders.sampleOrderInto?.(msg.epoch, into)) {
      const ids = nextOrders.sampleOrder(msg.epoch);
      if (ids.length > into.length) throw new Error('order longer than its buffer');
      into.set(ids);
      length = ids.length;
    }
    Atomics.store(state, 1, length);
    Atomics.store(state, 0, 1);
  } catch {
    // The consumer computes the order itself.
    Atomics.store(state, 0, 2);
  }
}

parentPort!.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'epoch') {
    order = new Uint32Array(msg.order);
    return;
  }
  if (msg.type === 'order') {
    prefetchOrder(msg);
    return;
  }
  const t0 = performance.now();
  const base = msg.batch * init.batchSize;
  let count = 0;
  stageMs = {};
  try {
    // Claim rows until the batch is done: workers that run faster take more rows, so an
    // uneven split (one core slower than the other) does not leave a worker idle. Rows that
    // are plain copies are claimed all at once: an atomic per row would cost more than the
    // row, and more still when two workers contend for the counter.
    const step = allCopies ? msg.size : 1;
    for (let k0 = Atomics.add(claims, msg.slot, step); k0 < msg.size; k0 = Atomics.add(claims, msg.slot, step)) {
      const k1 = Math.min(k0 + step, msg.size);
      if (gather) for (const r of runners) gatherRows(r, msg.slot, k0, order.subarray(base + k0, base + k1));
      else for (let k = k0; k < k1; k++) runRow(msg, k, order[base + k]!);
      count += k1 - k0;
    }
    const reply: WorkerReply = { type: 'done', batch: msg.batch, count, busyMs: performance.now() - t0, stageMs };
    parentPort!.postMessage(reply);
  } catch (e) {
    const err = e as Error & { code?: string };
    const reply: WorkerReply = {
      type: 'error',
      batch: msg.batch,
      sample: failing.sample,
      output: failing.output,
      code: err.code ?? 'DECODE_FAILED',
      message: err.message,
    };
    parentPort!.postMessage(reply);
  }
});

parentPort!.postMessage({ type: 'ready' } satisfies WorkerReply);

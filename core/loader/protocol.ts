import type { FieldSpec } from '../fields/field.js';
import type { TensorSpec } from '../pipeline/dtypes.js';
import type { DecoderSpec, OpSpec } from '../pipeline/spec.js';
import type { RemoteSnapshot } from '../remote/remote-file.js';
import type { FieldStats } from './decoders.js';
import type { DistributedOptions, OrderName } from './orders/index.js';

/**
 * What a worker needs to compute the loader's epoch orders itself (built-in orders only: a
 * pure function of this and the epoch), so the next epoch's order is ready when it starts.
 */
export interface OrderPlan {
  name: OrderName;
  seed: number;
  batchSize: number;
  /** The loader's sample ids (u32), shared. */
  indices: SharedArrayBuffer;
  distributed?: DistributedOptions;
}

/** One loader output as workers see it. */
export interface OutputPlan {
  name: string;
  /** Index of the source field in the file. */
  field: number;
  decoder: DecoderSpec;
  ops: OpSpec[];
  stats: FieldStats;
  /** What a worker writes per sample into the slot (before batch ops). */
  sampleOutput: TensorSpec;
  /** The ring for this output: slots × batchSize rows of sampleOutput. */
  ring: SharedArrayBuffer;
}

export type MemoryPlan =
  | { kind: 'os' }
  /** Process cache: page slots in `pool`; `pageToSlot[page]` is the slot holding a page, or -1. */
  | { kind: 'process'; pool: SharedArrayBuffer; pageToSlot: SharedArrayBuffer };

export interface WorkerInit {
  path: string;
  customFields: Array<{ name: string; spec: FieldSpec }>;
  fieldModules: string[];
  outputs: OutputPlan[];
  batchSize: number;
  seed: number;
  memory: MemoryPlan;
  /** A remote file: what its open fetched (header, tables), so a worker opens its Reader without a request. */
  remote?: RemoteSnapshot;
  /** Decode JPEG crops at a reduced DCT scale (LoaderOptions.fastDecode). */
  fastDecode: boolean;
  /** One Int32 row counter per ring slot: workers claim rows with Atomics.add, so a faster worker takes more. */
  claims: SharedArrayBuffer;
  /** Set when the consumer's thread gathers the batches (cheap rows) and the order is built in: worker 0 prefetches orders. */
  order?: OrderPlan;
}

/** Main → worker. Only numbers cross: pixels live in shared memory. */
export type WorkerRequest =
  | { type: 'epoch'; epoch: number; order: SharedArrayBuffer }
  /** Decode rows of batch `batch` into `slot`: rows are claimed one by one from the slot's shared counter until `size`. */
  | { type: 'job'; epoch: number; batch: number; slot: number; size: number }
  /**
   * Compute epoch `epoch`'s order into `into`: Int32 [status, length] then the u32 ids;
   * status (Atomics) 1 = written, 2 = failed or too long. The consumer polls it when the epoch
   * starts, without the event loop (an inline epoch never yields to it).
   */
  | { type: 'order'; epoch: number; into: SharedArrayBuffer };

/** Worker → main. */
export type WorkerReply =
  | { type: 'ready' }
  /** `stageMs`: this job's time per pipeline stage (decode-worker.ts says which), summed over its samples. */
  | { type: 'done'; batch: number; count: number; busyMs: number; stageMs?: Record<string, number> }
  /** `output`: index of the output whose decode failed (-1: not tied to one). */
  | { type: 'error'; batch: number; sample: number; output: number; code: string; message: string };

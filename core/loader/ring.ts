import { byteSize, elementCount, viewOf, type OutputArray } from '../pipeline/dtypes.js';
import { setOwn } from '../format/own-keys.js';
import { Batch, type BatchOutput } from './batch.js';
import type { Output } from './outputs.js';

/**
 * The ring of batch slots in shared memory: `slots` slots of `rows` rows per output, which
 * the workers (or the inline gather) fill; batch b lives in slot b % slots. `batch()` is
 * what the consumer gets for a filled slot: views of it, after the output's batch stages.
 */
export class BatchRing {
  constructor(
    readonly outputs: readonly Output[],
    /** Ring slots (batchesAhead + 1, at most the epoch's batches + 1). */
    readonly slots: number,
    /** Rows per ring slot: batchSize, or the epoch's sample count when a batch is larger (one batch then). */
    readonly rows: number,
    private readonly seed: number,
  ) {}

  /** Batch `b` of `epoch` (sample ids `ids`), read from its slot through the batch stages. */
  batch(epoch: number, b: number, ids: Uint32Array): Batch {
    const n = ids.length;
    const S = this.slots;
    const slot = b % S;
    const outputs: Record<string, BatchOutput> = {};
    for (const o of this.outputs) {
      const row = elementCount(o.plan.sampleOutput);
      const rowBytes = byteSize(o.plan.sampleOutput);
      let data = viewOf(o.plan.sampleOutput.dtype, o.plan.ring, slot * this.rows * rowBytes, n * row);
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

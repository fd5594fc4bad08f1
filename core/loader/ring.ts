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
  /** Per output, per slot: the view of a full slot, made once (a typed array over shared memory costs more than the rows of a small batch). */
  private readonly fullViews: OutputArray[][];

  constructor(
    readonly outputs: readonly Output[],
    /** Ring slots (batchesAhead + 1, at most the epoch's batches + 1). */
    readonly slots: number,
    /** Rows per ring slot: batchSize, or the epoch's sample count when a batch is larger (one batch then). */
    readonly rows: number,
    private readonly seed: number,
  ) {
    this.fullViews = outputs.map((o) => {
      const rowBytes = byteSize(o.plan.sampleOutput);
      const row = elementCount(o.plan.sampleOutput);
      return Array.from({ length: slots }, (_, slot) => viewOf(o.plan.sampleOutput.dtype, o.plan.ring, slot * rows * rowBytes, rows * row));
    });
  }

  /** Batch `b` of `epoch` (sample ids `ids`), read from its slot through the batch stages. */
  batch(epoch: number, b: number, ids: Uint32Array): Batch {
    const n = ids.length;
    const S = this.slots;
    const slot = b % S;
    const outputs: Record<string, BatchOutput> = {};
    for (let i = 0; i < this.outputs.length; i++) {
      const o = this.outputs[i]!;
      const full = this.fullViews[i]![slot]!;
      let data = n === this.rows ? full : (full.subarray(0, n * elementCount(o.plan.sampleOutput)) as OutputArray);
      // An indexed loop: entries() made an iterator per output per batch, stages or none.
      for (let k = 0; k < o.batchStages.length; k++) {
        const st = o.batchStages[k]!;
        const dst = o.batchBuffers[k * S + slot]!;
        const out = dst.subarray(0, n * elementCount(st.output)) as OutputArray;
        st.run(data, out, n, { seed: this.seed, epoch, batchIndex: b });
        data = out;
      }
      setOwn(outputs, o.plan.name, { data, shape: [n, ...o.spec.shape], dtype: o.spec.dtype });
    }
    // `ids` is a view of the epoch's order, which nothing writes once the epoch has begun
    // (loader.ts beginEpoch): a copy per batch was a kilobyte of garbage each time.
    return new Batch(epoch, b, ids, outputs);
  }
}

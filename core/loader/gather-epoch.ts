import { GatherPlan } from '../native/gather-plan.js';
import { byteSize } from '../pipeline/dtypes.js';
import type { Batch } from './batch.js';
import type { EpochLoader } from './epoch-run.js';
import type { BatchRing } from './ring.js';
import { LoaderError } from './errors.js';
import { recordWait } from './loader-stats.js';

/** Per loader (its ring), the gather handed to the addon once. */
const plans = new WeakMap<BatchRing, GatherPlan>();

/** The loader's gather plan: every output's metadata bytes into its ring slots. */
function planFor(loader: EpochLoader): GatherPlan {
  const { ring, reader } = loader;
  let plan = plans.get(ring);
  if (!plan) {
    const columns = ring.outputs.map((o) => {
      const rowBytes = byteSize(o.plan.sampleOutput);
      // Rows are packed in the slot: a cheap output's row is exactly the bytes it copies.
      if (o.copyBytes !== rowBytes)
        throw new Error(`inline gather: output ${o.plan.name} copies ${o.copyBytes} bytes of a ${rowBytes}-byte row`);
      return {
        offset: reader.recordLayout.offsets[o.plan.field]!,
        width: o.copyBytes,
        ring: new Uint8Array(o.plan.ring),
        slotBytes: ring.rows * rowBytes,
      };
    });
    plan = new GatherPlan(reader.metadata, reader.recordLayout.size, columns);
    plans.set(ring, plan);
  }
  return plan;
}

/**
 * One epoch of cheap rows on the consumer's thread (the inline gather, loader.ts): each
 * batch gathered into its ring slot when the consumer asks for it, one native call for all
 * outputs (the slot of the previous batch stays untouched, as on the worker path, which
 * reuses a slot only after its batch is released).
 */
export async function* gatherEpoch(loader: EpochLoader): AsyncGenerator<Batch> {
  const { epoch, start, ids: order } = loader.begin();
  const { batchSize: bs, length, ring, stats, cursor, life, signal } = loader;
  const S = ring.slots;
  const plan = planFor(loader);
  plan.setOrder(order);
  const at = cursor.enter(epoch, start);
  try {
    for (let b = start; b < length; b++) {
      if (life.closed) {
        if (life.failure) throw life.failure;
        return;
      }
      signal?.throwIfAborted();
      const t0 = performance.now();
      const first = b * bs;
      const n = Math.min(order.length, first + bs) - first;
      const bad = plan.run(first, n, b % S);
      if (bad >= 0)
        throw new LoaderError(
          'BAD_OPTIONS',
          `sample id ${order[bad]} (position ${bad} of epoch ${epoch}'s order) is outside the file's ${loader.reader.numSamples} samples; was a batch's sampleIds written to?`,
        );
      recordWait(stats, performance.now() - t0);
      at.held = b;
      yield ring.batch(epoch, b, order.subarray(first, first + n));
    }
  } finally {
    // Broke out mid-epoch: remember where, for state()/resume().
    cursor.leave(length);
  }
}

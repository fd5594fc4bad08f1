import { gatherRecords } from '../native/gather-records.js';
import { byteSize } from '../pipeline/dtypes.js';
import type { Batch } from './batch.js';
import type { EpochLoader } from './epoch-run.js';

/**
 * One epoch of cheap rows on the consumer's thread (the inline gather, loader.ts): each
 * batch gathered into its ring slot when the consumer asks for it, one native call per
 * output (the slot of the previous batch stays untouched, as on the worker path, which
 * reuses a slot only after its batch is released).
 */
export async function* gatherEpoch(loader: EpochLoader): AsyncGenerator<Batch> {
  const { epoch, start, ids: order } = loader.begin();
  const { batchSize: bs, length, reader, ring, stats, cursor, life, signal } = loader;
  const S = ring.slots;
  const meta = reader.metadata;
  const stride = reader.recordLayout.size;
  const rows = ring.outputs.map((o) => ({
    from: reader.recordLayout.offsets[o.plan.field]!,
    bytes: o.copyBytes,
    rowBytes: byteSize(o.plan.sampleOutput),
    ring: new Uint8Array(o.plan.ring),
  }));
  const at = cursor.enter(epoch, start);
  try {
    for (let b = start; b < length; b++) {
      if (life.closed) {
        if (life.failure) throw life.failure;
        return;
      }
      signal?.throwIfAborted();
      const t0 = performance.now();
      const ids = order.subarray(b * bs, Math.min(order.length, b * bs + bs));
      const slot = b % S;
      for (const r of rows) gatherRecords(meta, stride, r.from, r.bytes, ids, r.ring, slot * ring.rows * r.rowBytes);
      stats.waitMs.push(performance.now() - t0);
      stats.batches++;
      at.held = b;
      yield ring.batch(epoch, b, ids);
    }
  } finally {
    // Broke out mid-epoch: remember where, for state()/resume().
    cursor.leave(length);
  }
}

/**
 * SEQUENTIAL (loader-semantics §4.1): `indices` as given, identical every epoch; in
 * distributed mode the unshuffled DistributedSampler stride split of positions.
 */
import { checkEpoch, validateContext } from '../context.js';
import { gather, sequentialShare } from '../distributed.js';
import type { OrderContext, TraversalOrder } from '../types.js';

export class SequentialOrder implements TraversalOrder {
  readonly name = 'sequential';
  /** Computed once: the order does not depend on the epoch. */
  private readonly order: Uint32Array;
  private readonly seed: number;

  constructor(ctx: OrderContext) {
    validateContext(ctx);
    this.seed = ctx.seed;
    // Copy so later changes to the caller's array cannot alter past or future epochs.
    this.order = ctx.distributed ? gather(ctx.indices, sequentialShare(ctx.indices.length, ctx.distributed)) : ctx.indices.slice();
  }

  sampleOrder(epoch: number): Uint32Array {
    checkEpoch(this.name, this.seed, epoch);
    return this.order.slice();
  }
}

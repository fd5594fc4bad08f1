/**
 * Traversal orders as pluggable strategies (loader-semantics §4). An order turns an epoch
 * number into the sequence of sample ids visited in that epoch; the loader cuts it into
 * batches (§3). Orders never keep state between calls, so a resumed run can recompute any
 * epoch from (context, epoch) alone.
 */
import { validateContext } from './context.js';
import { OrderError } from './errors.js';
import { QuasiRandomOrder } from './quasi-random.js';
import { RandomOrder } from './random.js';
import { SequentialOrder } from './sequential.js';
import { ORDER_NAMES, type OrderName } from '../../api/order-names.js';

export interface DistributedOptions {
  /** This process's rank, 0 ≤ rank < worldSize. */
  rank: number;
  /** Number of data-parallel processes. */
  worldSize: number;
}

export interface OrderContext {
  /** Sample ids this loader may visit (default 0..N-1), in base order. */
  indices: Uint32Array;
  /** Ordering seed (non-negative safe integer); resolve an absent seed with `resolveSeed`. */
  seed: number;
  batchSize: number;
  /** Data parallel training: this rank's share. */
  distributed?: DistributedOptions;
  /**
   * For page-aware orders: the file-absolute page numbers each sample id's heap objects
   * live on (from the allocation table); samples with no heap data have none.
   */
  pagesOfSample?: (sampleId: number) => readonly number[];
}

export interface TraversalOrder {
  readonly name: string;
  /**
   * The epoch's full order of sample ids (before truncation to length×batchSize). Must be a
   * pure function of (ctx, epoch) — unlike FFCV, no hidden state carried between calls — so
   * mid-epoch resume can recompute it. Returns a fresh array the caller may keep or mutate.
   */
  sampleOrder(epoch: number): Uint32Array;
}

export { ORDER_NAMES, type OrderName };

export type OrderFactory = (ctx: OrderContext) => TraversalOrder;

/**
 * Builds an order. Built-in orders validate everything they need here, so a bad context
 * fails at loader construction rather than at the first epoch.
 */
export function createOrder(name: OrderName | OrderFactory, ctx: OrderContext): TraversalOrder {
  validateContext(ctx);
  if (typeof name === 'function') return name(ctx);
  switch (name) {
    case 'sequential':
      return new SequentialOrder(ctx);
    case 'random':
      return new RandomOrder(ctx);
    case 'quasi_random':
      return new QuasiRandomOrder(ctx);
    default: {
      // Reached only from untyped callers (CLI strings, JSON configs).
      const shown: unknown = name;
      throw new OrderError(
        'UNKNOWN_ORDER',
        `unknown traversal order ${JSON.stringify(shown)}; expected one of ${ORDER_NAMES.join(', ')} or a factory function`,
      );
    }
  }
}

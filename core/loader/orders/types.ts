/**
 * What a traversal order is (loader-semantics §4): an epoch number in, the sequence of sample
 * ids visited in that epoch out; the loader cuts it into batches (§3). Orders never keep state
 * between calls, so a resumed run can recompute any epoch from (context, epoch) alone. The
 * shapes alone, below both the registry and the strategies, so neither imports the other's file
 * for them.
 */
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
  /**
   * The same order written into `out` (exactly as long), when the strategy can build it in
   * place: worker 0 computes orders ahead straight into shared memory, and a 1.28M-id order
   * copied twice on the way cost ~9 ms of its ~33 ms. Returns false when it cannot.
   */
  sampleOrderInto?(epoch: number, out: Uint32Array): boolean;
}

export type OrderFactory = (ctx: OrderContext) => TraversalOrder;

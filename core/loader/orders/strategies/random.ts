/**
 * RANDOM (loader-semantics §4.2): a fresh, reproducible shuffle per epoch.
 * - single process: numpy `default_rng(seed + epoch).permutation(indices)`, bit-exact;
 * - distributed: torch `randperm(n, seed + epoch)` over positions, DistributedSampler split,
 *   then `indices[positions]` — the same samples PyTorch would give each rank.
 */
import { checkEpoch, validateContext } from '../context.js';
import { distributedShare, gather } from '../distributed.js';
import { numpyPermutation, numpyPermutationInto } from '../numpy-random.js';
import type { DistributedOptions, OrderContext, TraversalOrder } from '../types.js';
import { torchRandperm } from '../torch-randperm.js';

export class RandomOrder implements TraversalOrder {
  readonly name = 'random';
  private readonly indices: Uint32Array;
  private readonly seed: number;
  private readonly distributed: DistributedOptions | undefined;

  constructor(ctx: OrderContext) {
    validateContext(ctx);
    this.indices = ctx.indices.slice();
    this.seed = ctx.seed;
    this.distributed = ctx.distributed ? { ...ctx.distributed } : undefined;
  }

  sampleOrder(epoch: number): Uint32Array {
    checkEpoch(this.name, this.seed, epoch);
    const s = this.seed + epoch;
    if (!this.distributed) return numpyPermutation(this.indices, s);
    return gather(this.indices, distributedShare(torchRandperm(this.indices.length, s), this.distributed));
  }

  sampleOrderInto(epoch: number, out: Uint32Array): boolean {
    if (this.distributed || out.length !== this.indices.length) return false;
    checkEpoch(this.name, this.seed, epoch);
    numpyPermutationInto(this.indices, this.seed + epoch, out);
    return true;
  }
}

/**
 * FFCV's seed default (loader-semantics §2): an absent seed becomes 0 when distributed, so
 * every rank derives the same shuffle (PyTorch's rule; FFCV applies it to RANDOM only, but
 * our distributed quasi_random needs rank agreement just as much, and sequential ignores the
 * seed). Otherwise a random integer in [0, 2^31 − 1). The random source is a parameter to
 * keep this module free of hidden global state; the loader passes Math.random or its own.
 */
export function resolveSeed(seed: number | undefined, opts: { distributed: boolean; random: () => number }): number {
  if (seed !== undefined) return seed;
  if (opts.distributed) return 0;
  return Math.floor(opts.random() * (2 ** 31 - 1));
}

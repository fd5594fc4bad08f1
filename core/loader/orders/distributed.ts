/**
 * PyTorch DistributedSampler partitioning with drop_last=False (loader-semantics §4.4).
 * Every rank gets exactly ceil(n / W) positions: the list is padded to a multiple of W by
 * repeating its own head (cyclically when W > n), then rank r takes every W-th element
 * starting at r. Padding is why a few samples are visited twice per epoch across ranks.
 */
import { checkDistributed } from './context.js';
import type { DistributedOptions } from './types.js';

/** Samples per rank: ceil(n / worldSize). */
export function perRankCount(n: number, worldSize: number): number {
  return Math.ceil(n / worldSize);
}

/**
 * This rank's share of `positions` (a permutation of 0..n−1, or the identity when not
 * shuffling): element k is padded[rank + k·W], where padded[i] = positions[i mod n].
 */
export function distributedShare(positions: Uint32Array, d: DistributedOptions): Uint32Array {
  checkDistributed(d);
  const n = positions.length;
  const perRank = perRankCount(n, d.worldSize);
  const out = new Uint32Array(perRank);
  for (let k = 0, i = d.rank; k < perRank; k++, i += d.worldSize) {
    out[k] = positions[i < n ? i : (i - n) % n] as number;
  }
  return out;
}

/** `values[positions]` — turns positions in `indices` into sample ids. */
export function gather(values: Uint32Array, positions: Uint32Array): Uint32Array {
  const out = new Uint32Array(positions.length);
  for (let k = 0; k < positions.length; k++) out[k] = values[positions[k] as number] as number;
  return out;
}

/** Unshuffled partition: this rank's positions among 0..n−1. */
export function sequentialShare(n: number, d: DistributedOptions): Uint32Array {
  const identity = new Uint32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  return distributedShare(identity, d);
}

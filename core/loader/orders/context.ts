/**
 * Argument checks shared by all orders. Everything is checked once, up front, so that
 * `sampleOrder` can assume a sane context and stay a plain computation.
 */
import { OrderError } from './errors.js';
import type { DistributedOptions, OrderContext } from './types.js';

function isNonNegativeSafeInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

export function checkDistributed(d: DistributedOptions): void {
  if (!Number.isSafeInteger(d.worldSize) || d.worldSize < 1) {
    throw new OrderError('BAD_OPTIONS', `distributed.worldSize must be an integer ≥ 1, got ${d.worldSize}`);
  }
  if (!Number.isSafeInteger(d.rank) || d.rank < 0 || d.rank >= d.worldSize) {
    throw new OrderError('BAD_OPTIONS', `distributed.rank must be an integer in [0, ${d.worldSize}), got ${d.rank}`);
  }
}

export function validateContext(ctx: OrderContext): void {
  if (!(ctx.indices instanceof Uint32Array)) {
    throw new OrderError('BAD_OPTIONS', 'indices must be a Uint32Array of sample ids');
  }
  if (!isNonNegativeSafeInt(ctx.seed)) {
    throw new OrderError('BAD_OPTIONS', `seed must be a non-negative safe integer, got ${String(ctx.seed)}`);
  }
  if (!Number.isSafeInteger(ctx.batchSize) || ctx.batchSize < 1) {
    throw new OrderError('BAD_OPTIONS', `batchSize must be an integer ≥ 1, got ${ctx.batchSize}`);
  }
  if (ctx.distributed !== undefined) checkDistributed(ctx.distributed);
}

/** Epochs count from 0; seed + epoch must stay exact in a double. */
export function checkEpoch(order: string, seed: number, epoch: number): void {
  if (!isNonNegativeSafeInt(epoch) || !Number.isSafeInteger(seed + epoch)) {
    throw new OrderError('BAD_OPTIONS', `${order}: epoch must be a non-negative integer with seed + epoch ≤ 2^53 − 1, got ${epoch}`, {
      order,
      epoch,
    });
  }
}

/** Splits a non-negative safe integer into [low 32 bits, high 21 bits]. */
export function splitU53(v: number): [number, number] {
  const lo = v % 0x1_0000_0000;
  return [lo, (v - lo) / 0x1_0000_0000];
}

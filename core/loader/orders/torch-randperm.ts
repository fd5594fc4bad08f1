/**
 * torch's CPU `randperm(n, generator=Generator().manual_seed(seed))`, bit-exact
 * (loader-semantics §4.4). PyTorch's DistributedSampler shuffles with it, so a TS loader in
 * distributed RANDOM mode gives every rank the same samples FFCV/PyTorch would.
 */
import { OrderError } from './errors.js';
import { Mt19937 } from './mt19937.js';

/**
 * Torch switches to 64-bit draws at n ≥ 2^32 / 20 (to keep the modulo bias small); that
 * path is not reproduced here — no .beton file holds 214 million samples in practice.
 */
export const TORCH_RANDPERM_MAX_N = Math.floor(0xffffffff / 20);

/** Seed as torch sees it: manual_seed(s) keeps s mod 2^32 for the MT19937 engine. */
function torchSeed32(seed: number): number {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new OrderError('BAD_OPTIONS', `randperm seed must be a non-negative safe integer, got ${seed}`);
  return seed % 0x1_0000_0000;
}

/**
 * Forward swap shuffle starting from the identity: for i = 0 … n−2 swap a[i] with
 * a[i + (u32 mod (n − i))]. (Modulo, not rejection: that is what torch does, bias included.)
 */
export function torchRandperm(n: number, seed: number): Uint32Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new OrderError('BAD_OPTIONS', `randperm size must be a non-negative integer, got ${n}`);
  if (n >= TORCH_RANDPERM_MAX_N) {
    throw new OrderError(
      'TOO_LARGE',
      `randperm of ${n} elements: torch uses 64-bit draws from ${TORCH_RANDPERM_MAX_N} on, which is not reproduced`,
    );
  }
  const mt = new Mt19937(torchSeed32(seed));
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  for (let i = 0; i < n - 1; i++) {
    const z = mt.nextUint32() % (n - i);
    const x = a[i] as number;
    a[i] = a[i + z] as number;
    a[i + z] = x;
  }
  return a;
}

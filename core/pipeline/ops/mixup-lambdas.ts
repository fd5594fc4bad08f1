import { rngFor, type Rng } from '../rng.js';
import type { BatchContext } from '../stage.js';

// The mixing weights of ImageMixup and LabelMixup, one module below both: they must draw the
// same λ for a batch when configured alike (as in FFCV), so an image and its label agree.

/** Marsaglia–Tsang gamma sampler (shape k, scale 1). */
function gamma(k: number, rng: Rng): number {
  if (k < 1) return gamma(k + 1, rng) * Math.pow(rng.next() || Number.MIN_VALUE, 1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      // Box–Muller normal
      const u1 = rng.next() || Number.MIN_VALUE;
      x = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** λ ~ Beta(α, α) per sample of a batch of n (one λ for all with `same`), from the (seed, epoch, batch) stream. */
export function mixupLambdas(alpha: number, same: boolean, n: number, ctx: BatchContext): Float64Array {
  const rng = rngFor(ctx.seed, ctx.epoch, ctx.batchIndex, 0x6d1);
  const draw = (): number => {
    const a = gamma(alpha, rng);
    const b = gamma(alpha, rng);
    return a / (a + b);
  };
  const out = new Float64Array(n);
  if (same) out.fill(draw());
  else for (let i = 0; i < n; i++) out[i] = draw();
  return out;
}

/**
 * Augmentation randomness, seeded from (seed, epoch, sample id): a sample gets the same
 * crop and flip whatever worker decodes it, so batches do not depend on numWorkers
 * (FFCV's per-thread generators cannot promise this). Batch-level ops seed from
 * (seed, epoch, batch index).
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [a, b). */
  uniform(a: number, b: number): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

export function rngFor(seed: number, epoch: number, id: number, stream = 0): Rng {
  let s = mix32(
    mix32(mix32(seed >>> 0) ^ Math.floor(seed / 2 ** 32)) ^
      mix32(epoch >>> 0) ^
      mix32((id >>> 0) + 0x9e3779b9) ^
      mix32(Math.floor(id / 2 ** 32) + stream * 0x85ebca6b),
  );
  const next = (): number => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, uniform: (a, b) => a + (b - a) * next(), int: (n) => Math.floor(next() * n) };
}

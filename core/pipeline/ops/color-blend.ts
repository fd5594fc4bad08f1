import type { Rng } from '../rng.js';

// What RandomContrast and RandomSaturation share (FFCV's blend): the draws, in FFCV's order,
// and the grey value both blend towards.

/**
 * The blend factor r ~ U(max(0, 1−m), 1+m) of one sample, or null when the op is skipped
 * (probability 1 − p). Both numbers are drawn either way, so a sample's later draws do not
 * depend on whether this op applied.
 */
export function blendFactor(o: { p: number; magnitude: number }, rng: Rng): number | null {
  const apply = rng.next() < o.p;
  const r = rng.uniform(Math.max(0, 1 - o.magnitude), 1 + o.magnitude);
  return apply ? r : null;
}

/** The grey value (ITU-R 601 luma, truncated) of the RGB pixel starting at s[i]. */
export const grey = (s: Uint8Array, i: number): number => Math.trunc(0.2989 * s[i]! + 0.587 * s[i + 1]! + 0.114 * s[i + 2]!);

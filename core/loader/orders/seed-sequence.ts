/**
 * numpy's SeedSequence (pool of 4 words), just enough to turn a seed into the 128-bit
 * state/stream pair that `default_rng(seed)` hands to PCG64 (loader-semantics §4.2 step 1).
 * All arithmetic is mod 2^32: Math.imul gives the low 32 bits of a product and `>>> 0`
 * keeps values unsigned.
 */

const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

/** Splits a non-negative integer seed into 32-bit little-endian words (0 → [0]), as numpy does. */
export function seedWords(seed: number | bigint): number[] {
  let s = BigInt(seed);
  if (s < 0n) throw new RangeError(`seed must be non-negative, got ${seed}`);
  const words: number[] = [];
  do {
    words.push(Number(s & 0xffffffffn));
    s >>= 32n;
  } while (s > 0n);
  return words;
}

function mix(x: number, y: number): number {
  let r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
  r = (r ^ (r >>> 16)) >>> 0;
  return r;
}

/**
 * The generated state words of SeedSequence(entropy).generate_state(nWords, uint32).
 * `entropy` is a list of 32-bit words (use `seedWords` for a single integer seed; a list of
 * small integers is what numpy makes of `SeedSequence([a, b, …])` with each item < 2^32).
 */
export function seedSequenceState(entropy: readonly number[], nWords: number): Uint32Array {
  // hashmix's multiplier is a running value shared by every call on one SeedSequence.
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const words = entropy.length === 0 ? [0] : entropy;
  for (const w of words) {
    if (!Number.isInteger(w) || w < 0 || w > 0xffffffff) throw new RangeError(`entropy words must be 32-bit unsigned, got ${w}`);
  }
  const pool = new Uint32Array(POOL_SIZE);
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < words.length ? (words[i] as number) : 0);
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst] as number, hashmix(pool[src] as number));
    }
  }
  for (let k = POOL_SIZE; k < words.length; k++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst] as number, hashmix(words[k] as number));
  }
  const out = new Uint32Array(nWords);
  let g = INIT_B;
  for (let i = 0; i < nWords; i++) {
    let v = ((pool[i % POOL_SIZE] as number) ^ g) >>> 0;
    g = Math.imul(g, MULT_B) >>> 0;
    v = Math.imul(v, g) >>> 0;
    out[i] = (v ^ (v >>> 16)) >>> 0;
  }
  return out;
}

/** The four u64 words numpy's PCG64 is seeded with: S[k] = out[2k] | out[2k+1] << 32. */
export function seedSequenceU64x4(entropy: readonly number[]): [bigint, bigint, bigint, bigint] {
  const w = seedSequenceState(entropy, 8);
  const u64 = (k: number): bigint => BigInt(w[2 * k] as number) | (BigInt(w[2 * k + 1] as number) << 32n);
  return [u64(0), u64(1), u64(2), u64(3)];
}

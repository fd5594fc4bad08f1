/**
 * numpy `default_rng(seed).permutation(array)` for 1-D integer arrays, bit-exact
 * (loader-semantics §4.2): SeedSequence → PCG64 → Fisher-Yates from the end with
 * masked-rejection bounded draws. FFCV's non-distributed RANDOM order is exactly this with
 * seed + epoch, so a TS loader visits the same samples in the same order as FFCV.
 */
import { isNativeAvailable } from '../../native/beton-addon.js';
import { pcg64ShuffleU32 } from '../../native/pcg64-shuffle.js';
import { Pcg64 } from './pcg64.js';

/** Below this length the JS loop is as quick as crossing into the addon. */
const NATIVE_MIN = 4096;
let nativeShuffle: boolean | undefined;

/** The generator `numpy.random.default_rng(seed)` would use. */
export function defaultRng(seed: number | bigint): Pcg64 {
  return Pcg64.fromSeed(seed);
}

/**
 * numpy's in-place shuffle of `a[start, end)`: for i = len−1 … 1 swap element i with a
 * uniform j ∈ [0, i]. Exposed for ranges so quasi-random can shuffle page groups in place.
 */
export function shuffleInPlace(rng: Pcg64, a: Uint32Array, start = 0, end = a.length): void {
  // A million-sample epoch order costs ~100 ms here and ~10 ms in C++ (the same draws): the
  // loader computes one per epoch on its main thread, before the first batch can start.
  nativeShuffle ??= process.env.BETON_NATIVE_SHUFFLE !== '0' && isNativeAvailable();
  if (nativeShuffle && end - start >= NATIVE_MIN) {
    const st = rng.exportState();
    pcg64ShuffleU32(a, start, end, st.limbs, st.stash);
    rng.importState(st);
    return;
  }
  for (let i = end - start - 1; i > 0; i--) {
    const j = rng.interval(i);
    const x = a[start + i] as number;
    a[start + i] = a[start + j] as number;
    a[start + j] = x;
  }
}

/** `default_rng(seed).permutation(values)`: a shuffled copy; `values` is not modified. */
export function numpyPermutation(values: Uint32Array, seed: number | bigint): Uint32Array {
  return numpyPermutationInto(values, seed, new Uint32Array(values.length));
}

/** The same permutation written into `out` (as long as `values`; shared memory, say), returned. */
export function numpyPermutationInto(values: Uint32Array, seed: number | bigint, out: Uint32Array): Uint32Array {
  out.set(values);
  shuffleInPlace(defaultRng(seed), out);
  return out;
}

/** `default_rng(seed).permutation(n)`: a shuffle of 0..n−1. */
export function numpyPermutationOfRange(n: number, seed: number | bigint): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  shuffleInPlace(defaultRng(seed), out);
  return out;
}

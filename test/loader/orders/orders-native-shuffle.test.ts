// The addon's PCG64 shuffle must be the TypeScript one, draw for draw: same permutation,
// and the generator handed back in the same state (quasi-random shuffles many ranges with one).
import { describe, expect, it } from 'vitest';
import { pcg64ShuffleU32 } from '../../../core/native/pcg64-shuffle.js';
import { Pcg64 } from '../../../core/loader/orders/pcg64.js';

function jsShuffle(rng: Pcg64, a: Uint32Array, start: number, end: number): void {
  for (let i = end - start - 1; i > 0; i--) {
    const j = rng.interval(i);
    const x = a[start + i]!;
    a[start + i] = a[start + j]!;
    a[start + j] = x;
  }
}

describe('native PCG64 shuffle', () => {
  it.each([0, 1, 7, 2 ** 32 + 5, 123456789])('seed %s: ranges of many lengths, then the next draws, equal the TS generator', (seed) => {
    const js = Pcg64.fromSeed(seed);
    const nat = Pcg64.fromSeed(seed);
    const n = 300_000;
    const a = Uint32Array.from({ length: n }, (_, i) => i);
    const b = a.slice();
    // Odd lengths leave a stashed 32-bit half behind: the hand-over must carry it.
    const cuts = [0, 1, 2, 3, 1000, 1001, 65_537, 200_000, n];
    for (let k = 1; k < cuts.length; k++) {
      jsShuffle(js, a, cuts[k - 1]!, cuts[k]!);
      const st = nat.exportState();
      pcg64ShuffleU32(b, cuts[k - 1]!, cuts[k]!, st.limbs, st.stash);
      nat.importState(st);
      expect(b).toEqual(a);
      expect(nat.nextUint32()).toBe(js.nextUint32());
    }
    expect(nat.nextUint64()).toBe(js.nextUint64());
  });

  it('rejects a range outside the array', () => {
    const st = Pcg64.fromSeed(1).exportState();
    expect(() => pcg64ShuffleU32(new Uint32Array(4), 2, 9, st.limbs, st.stash)).toThrow(/outside/);
  });
});

import { describe, expect, it } from 'vitest';
import { hamming, nearPairs, popcount32 } from '../../../core/app/check/near-duplicates.js';

/** A deterministic 32-bit generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

describe('near-duplicate search (multi-index hashing)', () => {
  it('popcount and hamming', () => {
    expect(popcount32(0)).toBe(0);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(hamming([0xf0f0f0f0, 1], [0x0f0f0f0f, 0])).toBe(33);
  });

  it('finds exactly the pairs a brute-force comparison finds, for every threshold up to 11', () => {
    const r = rng(1);
    const hashes: Array<[number, number]> = [];
    for (let i = 0; i < 300; i++) hashes.push([r(), r()]);
    // Plant neighbours at distances 0..11 so every threshold has pairs to find.
    for (let d = 0; d <= 11; d++) {
      const base = hashes[d]!;
      const h: [number, number] = [base[0], base[1]];
      for (let b = 0; b < d; b++) {
        const bit = (b * 5 + d) % 64;
        if (bit < 32) h[0] = (h[0] ^ (1 << bit)) >>> 0;
        else h[1] = (h[1] ^ (1 << (bit - 32))) >>> 0;
      }
      hashes.push(h);
    }
    for (const t of [0, 3, 7, 11]) {
      const brute: string[] = [];
      for (let i = 0; i < hashes.length; i++)
        for (let j = i + 1; j < hashes.length; j++) if (hamming(hashes[i]!, hashes[j]!) <= t) brute.push(`${i},${j}`);
      const found = nearPairs(hashes, t).map(([a, b]) => `${a},${b}`);
      expect(found.sort(), `threshold ${t}`).toEqual(brute.sort());
      expect(brute.length).toBeGreaterThan(0);
    }
  });
});

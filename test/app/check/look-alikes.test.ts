/**
 * Issue 29, item 1: look-alike images (distinct pixels, perceptual hashes all within a few
 * bits) made the near-duplicate grouping keep k²/2 pairs: 10,000 aborted out of memory (exit
 * 134), 100,000 after 35 s. Now pairs are merged as found and the comparisons are budgeted:
 * `beton check` on 100,000 finishes in a bounded heap, groups capped with a count of the rest
 * (that scale case is look-alikes-scale.test.ts, slow tier; a 1,200-image capped case stays here).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDataset } from '../../../core/app/check-dataset.js';
import { hamming, nearGroups } from '../../../core/app/check/near-duplicates.js';
import { rng, writeLookAlikeBeton } from '../../helpers/look-alikes.js';

const dir = mkdtempSync(join(tmpdir(), 'look-alikes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('near-duplicates in bounded memory (issue 29)', () => {
  it('nearGroups equals the connected components of the brute-force pairs', () => {
    const r = rng(3);
    const word = (): number => Math.floor(r() * 2 ** 32) >>> 0;
    const hashes: Array<[number, number]> = [];
    for (let i = 0; i < 200; i++) hashes.push([word(), word()]);
    // Chains and repeats: a → a+3 bits → a+6 bits (a chain at threshold 4), exact copies.
    for (let i = 0; i < 40; i++) {
      const b = hashes[i]!;
      hashes.push([(b[0] ^ 0x7) >>> 0, b[1]], [(b[0] ^ 0x3f) >>> 0, b[1]], [b[0], b[1]]);
    }
    for (const t of [0, 4, 7]) {
      const parent = hashes.map((_, i) => i);
      const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
      for (let i = 0; i < hashes.length; i++)
        for (let j = i + 1; j < hashes.length; j++)
          if (hamming(hashes[i]!, hashes[j]!) <= t) parent[Math.max(find(i), find(j))] = Math.min(find(i), find(j));
      const brute = new Map<number, number[]>();
      hashes.forEach((_, i) => brute.set(find(i), [...(brute.get(find(i)) ?? []), i]));
      const want = [...brute.values()].filter((g) => g.length > 1);
      const got = nearGroups(hashes, t);
      expect(got.complete).toBe(true);
      expect(got.groups, `threshold ${t}`).toEqual(want);
      expect(want.length).toBeGreaterThan(0);
    }
  });

  it('a comparison budget bounds the time on one dense cluster, and says the search stopped', () => {
    const hashes: Array<[number, number]> = [];
    // 20,000 distinct hashes sharing their high word: one bucket holds them all (2 × 10^8 candidates).
    for (let i = 0; i < 20_000; i++) hashes.push([0xabcd1234, (i * 2654435761) >>> 0]);
    const t0 = performance.now();
    const g = nearGroups(hashes, 7, 5_000_000);
    expect(g.complete).toBe(false);
    expect(g.comparisons).toBeLessThan(5_000_000 + 20_000 * 4 * 17);
    console.log(`dense cluster: stopped after ${g.comparisons} comparisons in ${Math.round(performance.now() - t0)} ms`);
  });

  it('check on 1,200 look-alike 16x16 images lists one capped group and counts the rest', async () => {
    // The small case of the 100,000 one (look-alikes-scale.test.ts, slow tier): the same cap
    // (at most 1,000 ids a group, the rest counted in `omitted`), in-process.
    const file = join(dir, 'look-alikes-small.beton');
    await writeLookAlikeBeton(file, 1_200);
    const { result } = await checkDataset(file, { numWorkers: 0 });
    expect(result.corrupt).toEqual([]);
    expect(result.near_duplicates.length).toBeGreaterThan(0);
    for (const g of result.near_duplicates) expect(g.length).toBeLessThanOrEqual(1000);
    expect(result.omitted).toBeDefined();
    expect(result.omitted!.nearDuplicateIds).toBeGreaterThan(0);
  }, 60_000);
});

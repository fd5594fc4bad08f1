import { describe, expect, it } from 'vitest';
import {
  createOrder,
  distributedShare,
  gather,
  Mt19937,
  numpyPermutation,
  numpyPermutationOfRange,
  OrderError,
  pageLocality,
  Pcg64,
  QuasiRandomOrder,
  resolveSeed,
  seedSequenceState,
  seedSequenceU64x4,
  seedWords,
  sequentialShare,
  torchRandperm,
  type OrderContext,
  type OrderName,
  type TraversalOrder,
} from '../../../core/loader/orders/index.js';

const hex = (v: bigint): string => `0x${v.toString(16).padStart(16, '0')}`;
const range = (n: number, from = 0): Uint32Array => Uint32Array.from({ length: n }, (_, i) => from + i);
const sorted = (a: Uint32Array): number[] => Array.from(a).sort((x, y) => x - y);

/** Seeded generator for test data, so failures replay. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * A synthetic allocation layout: pages of varying fill (between `minPer` and `maxPer`
 * samples), page numbers starting at 3 (the header pages) with a few gaps, and every 37th
 * sample spilling onto the next page as well (big objects cross page borders).
 */
function pageLayout(n: number, minPer: number, maxPer: number, seed = 1): (id: number) => readonly number[] {
  const rnd = lcg(seed);
  const pages: number[][] = [];
  let page = 3;
  let left = 0;
  for (let id = 0; id < n; id++) {
    if (left === 0) {
      page += rnd() < 0.1 ? 2 : 1;
      left = minPer + Math.floor(rnd() * (maxPer - minPer + 1));
    }
    pages.push(id % 37 === 36 ? [page, page + 1] : [page]);
    left--;
  }
  return (id) => pages[id] ?? [];
}

function ctxOf(over: Partial<OrderContext> & { indices: Uint32Array }): OrderContext {
  return { seed: 0, batchSize: 8, ...over };
}

/** Asserts the usual DistributedSampler contract over all ranks' shares of `indices`. */
function expectPartition(shares: Uint32Array[], indices: Uint32Array): void {
  const n = indices.length;
  const w = shares.length;
  const perRank = Math.ceil(n / w);
  for (const s of shares) expect(s.length).toBe(perRank);
  const counts = new Map<number, number>();
  for (const s of shares) for (const id of s) counts.set(id, (counts.get(id) ?? 0) + 1);
  // Union = all requested ids, nothing else.
  expect([...counts.keys()].sort((a, b) => a - b)).toEqual(sorted(indices));
  const pad = perRank * w - n;
  if (n >= w) {
    // Disjoint apart from padding: exactly `pad` ids appear twice, none more.
    const twice = [...counts.values()].filter((c) => c === 2).length;
    expect(twice).toBe(pad);
    expect(Math.max(...counts.values(), 1)).toBeLessThanOrEqual(2);
  } else if (n > 0) {
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(Math.ceil(w / n));
  }
}

function sharesFor(name: OrderName, indices: Uint32Array, w: number, epoch: number, extra: Partial<OrderContext> = {}): Uint32Array[] {
  return Array.from({ length: w }, (_, rank) =>
    createOrder(name, ctxOf({ indices, seed: 11, distributed: { rank, worldSize: w }, ...extra })).sampleOrder(epoch),
  );
}

const isPermutationOf = (a: Uint32Array, b: Uint32Array): boolean => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

describe('numpy default_rng: SeedSequence → PCG64 → permutation (spec §4.2)', () => {
  it('SeedSequence(0) state words', () => {
    expect(seedWords(0)).toEqual([0]);
    expect(seedSequenceU64x4(seedWords(0)).map(hex)).toEqual([
      '0xdb2cd7e7b0f478be',
      '0xabf4641a2c71ba49',
      '0x20c6ed6d9d7b8d41',
      '0x2c4099de223c39d4',
    ]);
  });

  it('SeedSequence with more than 4 entropy words (numpy 2.4.6, generated here)', () => {
    expect(Array.from(seedSequenceState([1, 2, 3, 4, 5, 6], 8), (v) => v.toString(16))).toEqual([
      '1d1bca21',
      'ebcd001d',
      'b202608b',
      'cfea83a4',
      'e4fcf5b6',
      '9b21dd81',
      '8e2670b',
      '1b5dd0a3',
    ]);
    // default_rng([7, 0, 3, 0, 0x6c61796f]).bit_generator.random_raw(2)
    const g = Pcg64.fromEntropy([7, 0, 3, 0, 0x6c61796f]);
    expect([hex(g.nextUint64()), hex(g.nextUint64())]).toEqual(['0xe566702274309308', '0xdc386c741c11b31e']);
  });

  it('PCG64(seed 0) first 64-bit outputs', () => {
    const g = Pcg64.fromSeed(0);
    expect([hex(g.nextUint64()), hex(g.nextUint64())]).toEqual(['0xa30febcfd9c2825f', '0x4510bdf882d9d721']);
  });

  it('32-bit draws are the low half, then the stashed high half', () => {
    const g = Pcg64.fromSeed(0);
    expect([g.nextUint32(), g.nextUint32()]).toEqual([0xd9c2825f, 0xa30febcf]);
  });

  it.each([
    [0, [4, 6, 2, 7, 3, 5, 9, 0, 8, 1]],
    [1, [8, 4, 7, 0, 1, 2, 5, 9, 6, 3]],
    [17, [4, 0, 1, 7, 8, 6, 2, 9, 5, 3]],
    [18, [2, 8, 4, 0, 5, 6, 1, 7, 9, 3]],
    [42, [5, 6, 0, 7, 3, 2, 4, 9, 1, 8]],
  ])('permutation(0..9), seed %i', (seed, want) => {
    expect(Array.from(numpyPermutationOfRange(10, seed))).toEqual(want);
    expect(Array.from(numpyPermutation(range(10), seed))).toEqual(want);
  });

  it('permutation of values, seed 5', () => {
    const values = Uint32Array.from([100, 200, 300, 400, 500]);
    expect(Array.from(numpyPermutation(values, 5))).toEqual([500, 400, 200, 300, 100]);
    expect(Array.from(values)).toEqual([100, 200, 300, 400, 500]); // input untouched
  });

  it('more numpy 2.4.6 vectors (generated here): multi-word seeds, repeated values, 70 000 elements', () => {
    expect(Array.from(numpyPermutationOfRange(10, 2 ** 40 + 5))).toEqual([8, 1, 2, 5, 3, 0, 9, 7, 4, 6]);
    expect(Array.from(numpyPermutationOfRange(12, 2 ** 32))).toEqual([0, 7, 1, 11, 3, 10, 4, 6, 9, 8, 2, 5]);
    expect(Array.from(numpyPermutationOfRange(12, 2n ** 32n))).toEqual([0, 7, 1, 11, 3, 10, 4, 6, 9, 8, 2, 5]);
    expect(Array.from(numpyPermutation(Uint32Array.from([5, 5, 9, 1]), 0))).toEqual([9, 5, 5, 1]);
    const p = numpyPermutationOfRange(70_000, 12345);
    expect([...p.slice(0, 5), ...p.slice(-3)]).toEqual([7242, 31558, 24912, 13883, 64572, 61401, 50398, 45453]);
  });

  it('1.3M elements: bit-exact and fast', () => {
    const t0 = performance.now();
    const p = numpyPermutationOfRange(1_300_000, 1234);
    const ms = performance.now() - t0;
    expect([...p.slice(0, 5), ...p.slice(-3)]).toEqual([1003090, 771415, 777690, 859827, 1245107, 466564, 633985, 589555]);
    // Σ p[i]·i mod 2^32 over the whole array, computed by numpy.
    let h = 0;
    for (let i = 0; i < p.length; i++) h = (h + Math.imul(p[i] as number, i)) >>> 0;
    expect(h).toBe(2132863799);
    console.log(`numpy permutation of 1.3M elements: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(2000); // ~150 ms on a loaded 2-core box; generous for CI noise
  });

  it('bounded draws stay in range, including the 64-bit path', () => {
    const g = Pcg64.fromSeed(9);
    for (const max of [1, 2, 3, 7, 1000, 0x7fffffff, 0x80000000, 0xffffffff, 2 ** 32, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER]) {
      for (let k = 0; k < 50; k++) {
        const v = g.interval(max);
        expect(Number.isInteger(v) && v >= 0 && v <= max).toBe(true);
      }
    }
    expect(g.interval(0)).toBe(0);
  });
});

describe('torch randperm: MT19937 + forward swaps (spec §4.4)', () => {
  it('MT19937 reference output for the default seed 5489', () => {
    const mt = new Mt19937(5489);
    expect([mt.nextUint32(), mt.nextUint32()]).toEqual([3499211612, 581869302]);
  });

  it.each([
    [10, 0, [4, 1, 7, 5, 3, 9, 0, 8, 6, 2], [8, 6, 2]],
    [10, 1, [5, 6, 1, 2, 0, 8, 9, 3, 7, 4], [3, 7, 4]],
    [17, 5, [13, 15, 9, 6, 3, 1, 4, 10, 14, 0, 7, 11], [8, 5, 16]],
    [1000, 3, [986, 114, 871, 894, 140, 885, 232, 402, 837, 674, 854, 689], [154, 17, 341]],
    [100000, 7, [41615, 23657, 92717, 16389, 28607, 45432, 45737, 59262, 69052, 23840, 53468, 41316], [52301, 18202, 73623]],
  ])('randperm(%i, seed %i)', (n, seed, head, tail) => {
    const p = torchRandperm(n, seed);
    expect(Array.from(p.slice(0, 12))).toEqual(head.slice(0, 12));
    expect(Array.from(p.slice(-3))).toEqual(tail);
    expect(isPermutationOf(p, range(n))).toBe(true);
  });

  it('keeps only the low 32 bits of the seed, like manual_seed', () => {
    expect(torchRandperm(50, 2 ** 32 + 1)).toEqual(torchRandperm(50, 1));
  });

  it('edge sizes', () => {
    expect(torchRandperm(0, 1).length).toBe(0);
    expect(Array.from(torchRandperm(1, 1))).toEqual([0]);
  });
});

describe('DistributedSampler partitioning', () => {
  it('spec example: n = 10, W = 4, no shuffle', () => {
    const ranks = [0, 1, 2, 3].map((rank) => Array.from(sequentialShare(10, { rank, worldSize: 4 })));
    expect(ranks).toEqual([
      [0, 4, 8],
      [1, 5, 9],
      [2, 6, 0],
      [3, 7, 1],
    ]);
  });

  it('pads cyclically when the world is larger than the data', () => {
    const ranks = [0, 1, 2, 3, 4, 5, 6].map((rank) => Array.from(distributedShare(Uint32Array.from([7, 8, 9]), { rank, worldSize: 7 })));
    expect(ranks).toEqual([[7], [8], [9], [7], [8], [9], [7]]);
  });

  it('random: torch randperm(n, seed + epoch), padding, stride, then indices[positions]', () => {
    const indices = range(10, 100);
    // randperm(10, 0) = [4,1,7,5,3,9,0,8,6,2], padded with [4,1].
    expect(sharesFor('random', indices, 4, 0, { seed: 0 }).map((s) => Array.from(s))).toEqual([
      [104, 103, 106],
      [101, 109, 102],
      [107, 100, 104],
      [105, 108, 101],
    ]);
    // Epoch 1 with seed 0 shuffles with randperm(10, 1) = [5,6,1,2,0,8,9,3,7,4].
    expect(Array.from(sharesFor('random', indices, 4, 1, { seed: 0 })[0] as Uint32Array)).toEqual([105, 100, 107]);
  });

  const sizes = [0, 1, 3, 7, 10, 17, 64, 101, 600];
  for (const name of ['sequential', 'random', 'quasi_random'] as const) {
    it(`${name}: world sizes 1–8 × several n give equal, disjoint-but-padding, complete shares`, () => {
      for (const n of sizes) {
        // A shuffled subset of a larger file, as `indices` would be after filtering.
        const file = 2 * n + 5;
        const indices = numpyPermutation(range(file), n).slice(0, n);
        const pagesOfSample = pageLayout(file, 3, 9, n);
        for (let w = 1; w <= 8; w++) {
          for (const epoch of [0, 1]) expectPartition(sharesFor(name, indices, w, epoch, { pagesOfSample }), indices);
        }
      }
    });
  }

  it('bad rank or world size fails with a clear error', () => {
    const indices = range(10);
    expect(() => createOrder('random', ctxOf({ indices, distributed: { rank: 4, worldSize: 4 } }))).toThrow(
      /rank must be an integer in \[0, 4\)/,
    );
    expect(() => createOrder('random', ctxOf({ indices, distributed: { rank: 0, worldSize: 0 } }))).toThrow(OrderError);
  });
});

describe('sequential and random orders', () => {
  const indices = numpyPermutation(range(100), 3);

  it('sequential: indices unchanged, identical across epochs', () => {
    const o = createOrder('sequential', ctxOf({ indices }));
    expect(o.sampleOrder(0)).toEqual(indices);
    expect(o.sampleOrder(5)).toEqual(indices);
    const d = createOrder('sequential', ctxOf({ indices, distributed: { rank: 1, worldSize: 3 } }));
    expect(d.sampleOrder(0)).toEqual(d.sampleOrder(9));
    expect(d.sampleOrder(0)).toEqual(gather(indices, sequentialShare(100, { rank: 1, worldSize: 3 })));
  });

  it('random: numpy default_rng(seed + epoch).permutation(indices), different each epoch', () => {
    const o = createOrder('random', ctxOf({ indices: range(10), seed: 17 }));
    expect(Array.from(o.sampleOrder(0))).toEqual([4, 0, 1, 7, 8, 6, 2, 9, 5, 3]);
    expect(Array.from(o.sampleOrder(1))).toEqual([2, 8, 4, 0, 5, 6, 1, 7, 9, 3]);
    const big = createOrder('random', ctxOf({ indices, seed: 5 }));
    for (let e = 0; e < 5; e++) {
      expect(isPermutationOf(big.sampleOrder(e), indices)).toBe(true);
      expect(big.sampleOrder(e)).not.toEqual(big.sampleOrder(e + 1));
    }
  });

  it('random: the order built in place (worker 0 prefetch) equals sampleOrder; distributed or a wrong length declines', () => {
    // Above NATIVE_MIN (4096) the native shuffle runs, below it the TS one: both sizes.
    for (const n of [10, 5000]) {
      const o = createOrder('random', ctxOf({ indices: range(n), seed: 23 }));
      for (const epoch of [0, 1, 9]) {
        const into = new Uint32Array(new SharedArrayBuffer(4 * n)).fill(7);
        expect(o.sampleOrderInto?.(epoch, into)).toBe(true);
        expect(into).toEqual(new Uint32Array(o.sampleOrder(epoch)));
      }
      expect(o.sampleOrderInto?.(0, new Uint32Array(n + 1))).toBe(false);
    }
    const d = createOrder('random', ctxOf({ indices: range(12), distributed: { rank: 0, worldSize: 2 } }));
    expect(d.sampleOrderInto?.(0, new Uint32Array(12))).toBe(false);
  });

  it('orders are pure: same epoch, same result, whatever was asked before or changed since', () => {
    const mine = indices.slice();
    const o = createOrder('random', ctxOf({ indices: mine, seed: 8 }));
    const first = o.sampleOrder(3);
    o.sampleOrder(0);
    o.sampleOrder(7);
    mine.fill(0); // the caller's array changes after construction…
    const again = o.sampleOrder(3);
    expect(again).toEqual(first); // …but the order does not
    again[0] = 12345;
    expect(o.sampleOrder(3)).toEqual(first); // returned arrays are fresh copies
  });

  it('resolveSeed: 0 when distributed, else a draw in [0, 2^31 − 1)', () => {
    expect(resolveSeed(undefined, { distributed: true, random: () => 0.5 })).toBe(0);
    expect(resolveSeed(undefined, { distributed: false, random: () => 0.5 })).toBe(Math.floor(0.5 * (2 ** 31 - 1)));
    expect(resolveSeed(9, { distributed: true, random: () => 0.5 })).toBe(9);
  });

  it('custom factories and bad inputs', () => {
    const reversed = (ctx: OrderContext): TraversalOrder => ({ name: 'reversed', sampleOrder: () => ctx.indices.slice().reverse() });
    expect(Array.from(createOrder(reversed, ctxOf({ indices: range(4) })).sampleOrder(0))).toEqual([3, 2, 1, 0]);
    const bogus: unknown = 'shuffled';
    expect(() => createOrder(bogus as OrderName, ctxOf({ indices: range(4) }))).toThrow(/unknown traversal order "shuffled"/);
    expect(() => createOrder('random', ctxOf({ indices: range(4), seed: -1 }))).toThrow(/seed must be a non-negative/);
    expect(() => createOrder('random', ctxOf({ indices: range(4), batchSize: 0 }))).toThrow(/batchSize/);
    expect(() => createOrder('random', ctxOf({ indices: range(4) })).sampleOrder(-1)).toThrow(/epoch/);
    expect(() => createOrder('random', ctxOf({ indices: range(4) })).sampleOrder(1.5)).toThrow(/epoch/);
  });
});

describe('quasi_random', () => {
  const N = 40_000;
  const B = 8;
  // ~200 samples per page: small records, as with CIFAR-like data in 4–8 MiB pages.
  const pagesOfSample = pageLayout(N, 150, 250);
  const all = range(N);
  const homePage = (id: number): number => Math.min(...pagesOfSample(id));
  const WINDOW = 8 * B; // pages touched per 8 consecutive batches

  it('each epoch is a permutation; epochs differ; same (seed, epoch) → same order', () => {
    const o = createOrder('quasi_random', ctxOf({ indices: all, seed: 3, batchSize: B, pagesOfSample }));
    const orders = [0, 1, 2].map((e) => o.sampleOrder(e));
    for (const ord of orders) expect(isPermutationOf(ord, all)).toBe(true);
    expect(orders[0]).not.toEqual(orders[1]);
    expect(orders[1]).not.toEqual(orders[2]);
    // Pure: a fresh instance, and the same instance asked again out of order, agree.
    const fresh = createOrder('quasi_random', ctxOf({ indices: all, seed: 3, batchSize: B, pagesOfSample }));
    expect(fresh.sampleOrder(1)).toEqual(orders[1]);
    expect(o.sampleOrder(0)).toEqual(orders[0]);
    // Single process is exactly the world-size-1 case of the distributed layout.
    const w1 = createOrder(
      'quasi_random',
      ctxOf({ indices: all, seed: 3, batchSize: B, pagesOfSample, distributed: { rank: 0, worldSize: 1 } }),
    );
    expect(w1.sampleOrder(2)).toEqual(orders[2]);
    // A different seed gives a different order.
    expect(createOrder('quasi_random', ctxOf({ indices: all, seed: 4, batchSize: B, pagesOfSample })).sampleOrder(0)).not.toEqual(
      orders[0],
    );
  });

  it('subsets in any base order; the order depends on the set of ids, not on their listing', () => {
    const subset = numpyPermutation(all, 1).slice(0, 5000);
    const o = createOrder('quasi_random', ctxOf({ indices: subset, seed: 1, batchSize: B, pagesOfSample }));
    expect(isPermutationOf(o.sampleOrder(0), subset)).toBe(true);
    const relisted = createOrder(
      'quasi_random',
      ctxOf({ indices: Uint32Array.from(sorted(subset)), seed: 1, batchSize: B, pagesOfSample }),
    );
    expect(relisted.sampleOrder(0)).toEqual(o.sampleOrder(0));
  });

  it('touches far fewer pages per window than random order', () => {
    const quasi = createOrder('quasi_random', ctxOf({ indices: all, seed: 5, batchSize: B, pagesOfSample })).sampleOrder(0);
    const rand = createOrder('random', ctxOf({ indices: all, seed: 5, batchSize: B })).sampleOrder(0);
    const q = pageLocality(quasi, pagesOfSample, WINDOW);
    const r = pageLocality(rand, pagesOfSample, WINDOW);
    console.log(
      `pages per ${WINDOW}-sample window: quasi mean ${q.mean.toFixed(1)} max ${q.max}; random mean ${r.mean.toFixed(1)} max ${r.max}`,
    );
    expect(q.mean).toBeLessThan(r.mean / 2.5);
    // At most 2·B pages are active at once; a few more enter as pages run out, and a few
    // samples also reach into the following page.
    expect(q.max).toBeLessThanOrEqual(2 * B + WINDOW / 4);
  });

  it('still shuffles: batches mix many pages, and the first batch is not the first page', () => {
    const ord = createOrder('quasi_random', ctxOf({ indices: all, seed: 2, batchSize: B, pagesOfSample })).sampleOrder(0);
    const firstBatchPages = new Set(Array.from(ord.slice(0, B), homePage));
    expect(firstBatchPages.size).toBeGreaterThan(B / 2);
    // Position of each sample is far from its sequential position on average.
    let displacement = 0;
    for (let k = 0; k < N; k++) displacement += Math.abs((ord[k] as number) - k);
    expect(displacement / N).toBeGreaterThan(N / 5);
  });

  it('distributed: each rank reads few pages at a time, and ranks barely share pages', () => {
    for (const w of [2, 3, 4, 8]) {
      const quasi = sharesFor('quasi_random', all, w, 1, { batchSize: B, pagesOfSample });
      const rand = sharesFor('random', all, w, 1, { batchSize: B });
      expectPartition(quasi, all);
      for (let r = 0; r < w; r++) {
        const q = pageLocality(quasi[r] as Uint32Array, pagesOfSample, WINDOW);
        const rr = pageLocality(rand[r] as Uint32Array, pagesOfSample, WINDOW);
        expect(q.mean).toBeLessThan(rr.mean / 2.5);
        expect(q.max).toBeLessThanOrEqual(2 * B + WINDOW / 4);
      }
      // Each rank gets a contiguous run of the shuffled page list: only pages cut by the
      // W − 1 borders between ranks, plus the pages the (< W) padding samples come from,
      // are read by more than one rank.
      const owners = new Map<number, Set<number>>();
      quasi.forEach((share, r) => share.forEach((id) => owners.set(homePage(id), (owners.get(homePage(id)) ?? new Set()).add(r))));
      const shared = [...owners.values()].filter((s) => s.size > 1).length;
      expect(shared).toBeLessThanOrEqual(2 * (w - 1));
      // Epochs differ per rank and repeat for the same (seed, epoch).
      const again = sharesFor('quasi_random', all, w, 1, { batchSize: B, pagesOfSample });
      const next = sharesFor('quasi_random', all, w, 2, { batchSize: B, pagesOfSample });
      for (let r = 0; r < w; r++) {
        expect(again[r]).toEqual(quasi[r]);
        expect(next[r]).not.toEqual(quasi[r]);
      }
    }
  });

  it('a single page or more buffer than pages still yields a permutation', () => {
    const onePage = (): readonly number[] => [7];
    const o = createOrder('quasi_random', ctxOf({ indices: range(50), batchSize: 4, pagesOfSample: onePage }));
    expect(isPermutationOf(o.sampleOrder(0), range(50))).toBe(true);
    const d = [0, 1, 2].map((rank) =>
      createOrder(
        'quasi_random',
        ctxOf({ indices: range(50), batchSize: 4, pagesOfSample: onePage, distributed: { rank, worldSize: 3 } }),
      ).sampleOrder(0),
    );
    expectPartition(d, range(50));
    const wide = createOrder('quasi_random', ctxOf({ indices: all.slice(0, 2000), batchSize: 512, pagesOfSample }));
    expect(isPermutationOf(wide.sampleOrder(0), all.slice(0, 2000))).toBe(true);
    expect(createOrder('quasi_random', ctxOf({ indices: new Uint32Array(0), pagesOfSample })).sampleOrder(0).length).toBe(0);
  });

  it('validates up front: heap data, duplicates, page table', () => {
    const noHeap = (id: number): readonly number[] => (id % 10 === 3 ? [] : [id >> 4]);
    const err = (f: () => unknown): OrderError => {
      try {
        f();
      } catch (e) {
        if (e instanceof OrderError) return e;
        throw e;
      }
      throw new Error('expected an OrderError');
    };
    const e1 = err(() => createOrder('quasi_random', ctxOf({ indices: range(40), pagesOfSample: noHeap })));
    expect(e1.code).toBe('NO_HEAP_DATA');
    expect(e1.message).toMatch(/4 of 40 requested samples own none \(e\.g\. sample 3, 13, 23, 33\)/);
    const e2 = err(() => createOrder('quasi_random', ctxOf({ indices: Uint32Array.from([1, 2, 3, 2]), pagesOfSample })));
    expect(e2.code).toBe('DUPLICATE_INDEX');
    expect(e2.details.sample).toBe(2);
    const e3 = err(() => createOrder('quasi_random', ctxOf({ indices: range(4) })));
    expect(e3.code).toBe('BAD_OPTIONS');
    expect(e3.message).toMatch(/pagesOfSample/);
    expect(() => new QuasiRandomOrder(ctxOf({ indices: range(4), pagesOfSample: () => [-1] }))).toThrow(/invalid page number/);
  });
});

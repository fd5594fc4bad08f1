/**
 * Near-duplicates among 64-bit hashes, far below quadratic: multi-index hashing.
 * The hash is cut into 4 bands of 16 bits; two hashes within Hamming distance t differ in
 * at most floor(t / 4) bits of some band (pigeonhole), so each hash is looked up only in
 * the buckets of its bands' values within that radius (1 + 16 + … keys a band), and only
 * those candidates are compared in full. With t = 7 that is 17 keys per band: about
 * 68 × n / 65536 candidates per hash on random hashes, i.e. about 1/1000 of the n² / 2
 * pairs (a million images: ~10^9 cheap comparisons, not 5 × 10^11; bench/check.ts
 * measures it).
 *
 * Look-alike images are the hostile case: their hashes crowd a few buckets, and the close
 * pairs number k² / 2 (10,000 look-alikes: 5 × 10^7 pairs, an out-of-memory abort when they
 * were kept). So the grouping never holds pairs: equal hashes are merged first (look-alikes
 * mostly share their hash exactly), each close pair found is merged at once in a union-find
 * over typed arrays, and the comparisons are counted against a budget. Memory is O(n):
 * about 60 bytes a hash (hash words, sort order, union-find, 4 band indexes) plus 4 × 256 KiB
 * of bucket starts, whatever the pairs. Time is at most the budget's comparisons (about 1 s
 * a 10^8 on this machine: 1.5 × 10^8 by default); past it the search stops and says so (`complete: false`).
 */

const BANDS = 4;

/** Candidate comparisons before the search gives up (a few seconds at worst). */
export const NEAR_COMPARISON_BUDGET = 150_000_000;

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function hamming(a: readonly [number, number], b: readonly [number, number]): number {
  return popcount32((a[0] ^ b[0]) >>> 0) + popcount32((a[1] ^ b[1]) >>> 0);
}

/** Every 16-bit value within `radius` bits of `v` (radius 0, 1 or 2). */
function neighbours(v: number, radius: number): number[] {
  const out = [v];
  if (radius >= 1) for (let i = 0; i < 16; i++) out.push(v ^ (1 << i));
  if (radius >= 2) for (let i = 0; i < 16; i++) for (let j = i + 1; j < 16; j++) out.push(v ^ (1 << i) ^ (1 << j));
  return out;
}

/** One band's buckets as flat arrays (counting sort): ids of bucket v are ids[start[v] .. start[v + 1]). */
interface BandIndex {
  start: Int32Array;
  ids: Int32Array;
}

const bandOf = (hi: Uint32Array, lo: Uint32Array, i: number, k: number): number => {
  const word = k < 2 ? hi[i]! : lo[i]!;
  return k % 2 === 0 ? word >>> 16 : word & 0xffff;
};

function indexBand(hi: Uint32Array, lo: Uint32Array, k: number): BandIndex {
  const n = hi.length;
  const start = new Int32Array(65537);
  for (let i = 0; i < n; i++) start[bandOf(hi, lo, i, k) + 1]!++;
  for (let v = 0; v < 65536; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, 65536);
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[fill[bandOf(hi, lo, i, k)]!++] = i;
  return { start, ids };
}

function radiusOf(threshold: number): number {
  const radius = Math.floor(threshold / BANDS);
  if (radius > 2) throw new RangeError(`near-duplicate threshold ${threshold} is above 11 bits`);
  return radius;
}

/**
 * Calls `onPair(i, j)` (i < j) for every pair within `threshold`, as found; stops once
 * `budget` candidates were compared. Returns the comparisons made and whether it finished.
 */
function scan(
  hi: Uint32Array,
  lo: Uint32Array,
  threshold: number,
  onPair: (i: number, j: number) => void,
  budget: number,
): { comparisons: number; complete: boolean } {
  const radius = radiusOf(threshold);
  const n = hi.length;
  const bands = Array.from({ length: BANDS }, (_, k) => indexBand(hi, lo, k));
  // seenBy[j] = i + 1 once j was compared with i (a candidate can turn up in several bands).
  const seenBy = new Int32Array(n);
  let comparisons = 0;
  for (let i = 0; i < n; i++) {
    const a0 = hi[i]!;
    const a1 = lo[i]!;
    for (let k = 0; k < BANDS; k++) {
      const { start, ids } = bands[k]!;
      for (const key of neighbours(bandOf(hi, lo, i, k), radius)) {
        const end = start[key + 1]!;
        let p = start[key]!;
        comparisons += end - p;
        if (comparisons > budget) return { comparisons, complete: false };
        for (; p < end; p++) {
          const j = ids[p]!;
          if (j <= i || seenBy[j] === i + 1) continue;
          seenBy[j] = i + 1;
          if (popcount32((a0 ^ hi[j]!) >>> 0) + popcount32((a1 ^ lo[j]!) >>> 0) <= threshold) onPair(i, j);
        }
      }
    }
  }
  return { comparisons, complete: true };
}

/** Pairs [i, j] (i < j, indexes into `hashes`) at Hamming distance ≤ `threshold` (≤ 11). For tests and the bench: it keeps every pair. */
export function nearPairs(hashes: ReadonlyArray<readonly [number, number]>, threshold: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  scan(
    Uint32Array.from(hashes, (h) => h[0]),
    Uint32Array.from(hashes, (h) => h[1]),
    threshold,
    (i, j) => pairs.push([i, j]),
    Infinity,
  );
  return pairs;
}

/** Union-find over 0..n-1 in one Int32Array (path halving, smaller root wins). */
class Components {
  readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }
  find(x: number): number {
    const p = this.parent;
    while (p[x] !== x) {
      p[x] = p[p[x]!]!;
      x = p[x]!;
    }
    return x;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra < rb) this.parent[rb] = ra;
    else if (rb < ra) this.parent[ra] = rb;
  }
}

export interface NearGroups {
  /** Groups of 2 or more indexes into the hashes, each ascending, ordered by first index. */
  groups: number[][];
  comparisons: number;
  /** False when the comparison budget ran out: groups found so far are returned, some may be missing or split. */
  complete: boolean;
}

/** Groups of hashes linked by chains of pairs within `threshold`, in O(n) memory (see the file's comment). */
export function nearGroups(
  hashes: ReadonlyArray<readonly [number, number]>,
  threshold: number,
  budget = NEAR_COMPARISON_BUDGET,
): NearGroups {
  radiusOf(threshold);
  const n = hashes.length;
  const hi = Uint32Array.from(hashes, (h) => h[0]);
  const lo = Uint32Array.from(hashes, (h) => h[1]);
  const uf = new Components(n);
  // Equal hashes first: sorted, each run merged, one representative searched.
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => hi[a]! - hi[b]! || lo[a]! - lo[b]! || a - b);
  const reps: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const prev = k > 0 ? order[k - 1]! : -1;
    if (prev >= 0 && hi[prev] === hi[i] && lo[prev] === lo[i]) uf.union(prev, i);
    else reps.push(i);
  }
  const rhi = Uint32Array.from(reps, (i) => hi[i]!);
  const rlo = Uint32Array.from(reps, (i) => lo[i]!);
  const { comparisons, complete } = scan(rhi, rlo, threshold, (a, b) => uf.union(reps[a]!, reps[b]!), budget);
  // Sizes first: only groups of two or more get an array. Roots are each group's smallest
  // index, so visiting indexes in order lists groups by first index, each ascending.
  const root = new Int32Array(n);
  const size = new Int32Array(n);
  for (let i = 0; i < n; i++) size[(root[i] = uf.find(i))]!++;
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = root[i]!;
    if (size[r]! < 2) continue;
    const g = byRoot.get(r);
    if (g) g.push(i);
    else byRoot.set(r, [i]);
  }
  const groups = [...byRoot.values()];
  return { groups, comparisons, complete };
}

/**
 * Near-duplicate pairs among 64-bit hashes, far below quadratic: multi-index hashing.
 * The hash is cut into 4 bands of 16 bits; two hashes within Hamming distance t differ in
 * at most floor(t / 4) bits of some band (pigeonhole), so each hash is looked up only in
 * the buckets of its bands' values within that radius (1 + 16 + … keys a band), and only
 * those candidates are compared in full. With t = 7 that is 17 keys per band: about
 * 68 × n / 65536 candidates per hash on random hashes, i.e. about 1/1000 of the n² / 2
 * pairs (a million images: ~10^9 cheap comparisons, not 5 × 10^11; bench/check.ts
 * measures it).
 */

const BANDS = 4;

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

/** Pairs [i, j] (i < j, indexes into `hashes`) at Hamming distance ≤ `threshold` (≤ 11). */
export function nearPairs(hashes: ReadonlyArray<readonly [number, number]>, threshold: number): Array<[number, number]> {
  const radius = Math.floor(threshold / BANDS);
  if (radius > 2) throw new RangeError(`near-duplicate threshold ${threshold} is above 11 bits`);
  const n = hashes.length;
  // Flat typed arrays throughout: a million hashes make 4 million bucket entries, and the
  // inner loop must not chase a pointer per candidate.
  const hi = Uint32Array.from(hashes, (h) => h[0]);
  const lo = Uint32Array.from(hashes, (h) => h[1]);
  const bands = Array.from({ length: BANDS }, (_, k) => indexBand(hi, lo, k));
  const pairs: Array<[number, number]> = [];
  // seenBy[j] = i + 1 once j was compared with i (a candidate can turn up in several bands).
  const seenBy = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const a0 = hi[i]!;
    const a1 = lo[i]!;
    for (let k = 0; k < BANDS; k++) {
      const { start, ids } = bands[k]!;
      for (const key of neighbours(bandOf(hi, lo, i, k), radius)) {
        for (let p = start[key]!, end = start[key + 1]!; p < end; p++) {
          const j = ids[p]!;
          if (j <= i || seenBy[j] === i + 1) continue;
          seenBy[j] = i + 1;
          if (popcount32((a0 ^ hi[j]!) >>> 0) + popcount32((a1 ^ lo[j]!) >>> 0) <= threshold) pairs.push([i, j]);
        }
      }
    }
  }
  return pairs;
}

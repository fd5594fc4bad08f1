/**
 * Per-sample uniform [0, 1) draws from (seed, sample index), so a 'proportion' build is
 * reproducible and independent of how samples are spread over workers.
 */
export function sampleRandom(seed: number, sampleIndex: number): () => number {
  let s = mix(mix(seed >>> 0) ^ mix(sampleIndex >>> 0) ^ Math.floor(sampleIndex / 2 ** 32));
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

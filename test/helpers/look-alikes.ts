import { RGBImageField, IntField } from '../../core/fields/index.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

/** A deterministic generator of floats in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * `n` distinct 16x16 images that look alike: one blocky grey picture (4x4 blocks of random
 * levels) with independent noise of ±`noise` levels per pixel. Their perceptual hashes are
 * mostly distinct and almost all within a few bits of each other: k²/2 close pairs, the
 * hostile case for the near-duplicate grouping. Raw pixels, so writing 100,000 takes ~2 s.
 */
export async function writeLookAlikeBeton(path: string, n: number, noise = 8, seed = 7): Promise<void> {
  const r = rng(seed);
  const grid = Array.from({ length: 16 }, () => Math.floor(r() * 256));
  const base = new Uint8Array(16 * 16 * 3);
  for (let p = 0; p < 256; p++) base.fill(grid[((p >> 6) << 2) + ((p & 15) >> 2)]!, p * 3, p * 3 + 3);
  function* samples(): Generator<{ image: { width: number; height: number; data: Uint8Array }; label: number }> {
    for (let k = 0; k < n; k++) {
      const data = base.map((v) => Math.max(0, Math.min(255, v + Math.floor(r() * (2 * noise + 1)) - noise)));
      yield { image: { width: 16, height: 16, data }, label: k % 10 };
    }
  }
  await new DatasetWriter(path, { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write(
    samples(),
  );
}

// Issue 33 item 7: our centre and random-resized crops equal FFCV's wherever FFCV's is not
// empty. The reference is FFCV's own code (ffcv.fields.rgb_image), run by python3 on a vector
// file of cases and draws, not a TypeScript copy sharing our rounding helpers. Slow tier
// (python3 + FFCV on 20 000 cases); test/writer/small-datasets.test.ts keeps the 1×1 cases fast.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { centerCrop, randomResizedCrop, type Crop } from '../../core/pipeline/crop.js';
import type { Rng } from '../../core/pipeline/rng.js';
import { requires } from '../helpers/requires.js';
import { ffcvStatus, PY_DIR, PYTHON } from '../interop/ffcv.js';
import { mulberry32 as mulberry } from '../helpers/mulberry32.js';

const HAVE_FFCV = requires('FFCV', `pip install ffcv (the crop reference is FFCV's own code, run by ${PYTHON})`, ffcvStatus().ok);

const dir = mkdtempSync(join(tmpdir(), 'beton-crops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => join(dir, name);

/** An Rng that hands out recorded draws: what FFCV's side is given too (test/interop/py/ffcv_crops.py). */
function replay(draws: Float64Array): Rng {
  let k = 0;
  const next = (): number => {
    if (k >= draws.length) throw new Error('the crop drew more numbers than recorded');
    return draws[k++]!;
  };
  return { next, uniform: (a, b) => a + (b - a) * next(), int: (n) => Math.floor(next() * n) };
}

const PER_CASE = 7; // h, w, centre ratio, scale lo/hi, ratio lo/hi
const DRAWS = 40; // 10 tries of 4 draws: the most a crop takes
interface CropCase {
  h: number;
  w: number;
  cr: number;
  scale: [number, number];
  ratio: [number, number];
  draws: Float64Array;
}

/** The 1×1 cases first (ratios it cannot meet), then 20 000 random sizes, ratios and draws. */
function cropCases(): CropCase[] {
  const r = mulberry(7);
  const cases: CropCase[] = [];
  const draws = (): Float64Array => Float64Array.from({ length: DRAWS }, () => r());
  cases.push({ h: 1, w: 1, cr: 224 / 256, scale: [0.08, 1], ratio: [3, 4], draws: draws() });
  cases.push({ h: 1, w: 1, cr: 224 / 256, scale: [0.08, 1], ratio: [0.25, 0.4], draws: draws() });
  for (let i = 0; i < 20_000; i++) {
    const h = 1 + Math.floor(r() ** 3 * 600);
    const w = 1 + Math.floor(r() ** 3 * 600);
    const cr = 0.05 + r() * 0.95;
    const lo = 0.1 + r() * 3;
    const ratio: [number, number] = [lo, lo * (1 + r() * 2)];
    const scale: [number, number] = [0.01 + r() * 0.5, 1];
    cases.push({ h, w, cr, scale, ratio, draws: draws() });
  }
  return cases;
}

/** FFCV's get_center_crop and get_random_crop on every case, run by FFCV in Python. */
function ffcvCrops(cases: CropCase[]): Array<{ center: Crop; rrc: Crop }> {
  const vec = new Float64Array(cases.length * (PER_CASE + DRAWS));
  cases.forEach((c, n) => {
    vec.set([c.h, c.w, c.cr, ...c.scale, ...c.ratio], n * (PER_CASE + DRAWS));
    vec.set(c.draws, n * (PER_CASE + DRAWS) + PER_CASE);
  });
  writeFileSync(p('crops.f64'), vec);
  const run = spawnSync(PYTHON, [join(PY_DIR, 'ffcv_crops.py'), p('crops.f64'), p('crops.i32'), String(DRAWS)], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`ffcv_crops.py failed (${run.status ?? run.signal}): ${run.stderr}`);
  const out = new Int32Array(new Uint8Array(readFileSync(p('crops.i32'))).buffer);
  expect(out.length).toBe(cases.length * 8);
  const crop = (o: number): Crop => ({ y: out[o]!, x: out[o + 1]!, h: out[o + 2]!, w: out[o + 3]! });
  return cases.map((_, n) => ({ center: crop(n * 8), rrc: crop(n * 8 + 4) }));
}

describe('crops of tiny and random images against FFCV', () => {
  it.runIf(HAVE_FFCV)(
    "equal to FFCV's crop wherever FFCV's is not empty (FFCV run on 20 000 random sizes, ratios and draws)",
    () => {
      const cases = cropCases();
      const ref = ffcvCrops(cases);
      // FFCV's own crop of a 1×1 image is empty (it then fails in its resize); ours is one pixel.
      expect(ref[0]!.center.w).toBe(0);
      expect(ref[0]!.rrc.h).toBe(0);
      let compared = 0;
      let comparedRrc = 0;
      const mismatches: string[] = [];
      const outside: string[] = [];
      cases.forEach((c, n) => {
        const { center, rrc } = ref[n]!;
        const ours = centerCrop(c.h, c.w, c.cr);
        if (center.w > 0) {
          if (JSON.stringify(ours) !== JSON.stringify(center))
            mismatches.push(`centre ${c.h}×${c.w} ${c.cr}: ${JSON.stringify(ours)} vs FFCV ${JSON.stringify(center)}`);
          compared++;
        } else expect(ours).toMatchObject({ h: 1, w: 1 });
        const b = randomResizedCrop(c.h, c.w, c.scale, c.ratio, replay(c.draws));
        if (rrc.w > 0 && rrc.h > 0) {
          if (JSON.stringify(b) !== JSON.stringify(rrc))
            mismatches.push(`rrc ${c.h}×${c.w} scale ${c.scale} ratio ${c.ratio}: ${JSON.stringify(b)} vs FFCV ${JSON.stringify(rrc)}`);
          comparedRrc++;
        } else expect(Math.min(b.w, b.h)).toBe(1);
        if (b.y + b.h > c.h || b.x + b.w > c.w) outside.push(`rrc ${c.h}×${c.w}: ${JSON.stringify(b)}`);
      });
      expect(mismatches.slice(0, 5), `${mismatches.length} crops differ from FFCV's`).toEqual([]);
      expect(outside.slice(0, 5), `${outside.length} crops reach outside the image`).toEqual([]);
      expect(compared).toBeGreaterThan(10_000);
      expect(comparedRrc).toBeGreaterThan(10_000);
    },
    120_000,
  );
});

import { describe, expect, it } from 'vitest';
import { centerCrop, randomResizedCrop, roundHalfEven } from '../../core/pipeline/crop.js';
import { float16Bits, toFloat16Bits } from '../../core/format/float16.js';
import { torchCast } from '../../core/pipeline/dtypes.js';
import { ConvertStage } from '../../core/pipeline/ops/convert.js';
import { ImageMixupStage } from '../../core/pipeline/ops/image-mixup.js';
import { planStages } from '../../core/pipeline/plan.js';
import type { Rng } from '../../core/pipeline/rng.js';
import { rngFor } from '../../core/pipeline/rng.js';
import { Convert, NormalizeImage, RandomBrightness, RandomContrast, RandomSaturation, ToCHW } from '../../core/pipeline/spec.js';

/** An rng that returns the given values in turn (to hand-compute results). */
const fixed = (...xs: number[]): Rng => {
  let i = 0;
  const next = (): number => xs[i++ % xs.length]!;
  return { next, uniform: (a, b) => a + (b - a) * next(), int: (n) => Math.floor(next() * n) };
};
const img = (px: number[][]): Uint8Array => Uint8Array.from(px.flat());
const ctx = (rng: Rng) => ({ sampleId: 0, epoch: 0, rng });

describe('pipeline ops, hand-computed', () => {
  it('brightness: factor r = U(1−m, 1+m), truncating, clipped', () => {
    const { stages } = planStages({ shape: [1, 2, 3], dtype: 'uint8' }, [RandomBrightness(0.5, 1)]);
    const out = new Uint8Array(6);
    // draws: apply (0 < 1), factor 0.5 + 1.0 × 0.8 = 1.3
    stages[0]!.run(
      img([
        [10, 100, 200],
        [0, 1, 255],
      ]),
      out,
      ctx(fixed(0, 0.8)),
    );
    expect(Array.from(out)).toEqual([13, 130, 255, 0, 1, 255]);
  });

  it('contrast blends with the mean grey; saturation with each pixel’s grey', () => {
    const src = img([
      [100, 50, 0],
      [200, 150, 100],
    ]);
    const c = planStages({ shape: [1, 2, 3], dtype: 'uint8' }, [RandomContrast(1, 1)]).stages[0]!;
    const a = src.slice();
    c.run(a, a, ctx(fixed(0, 0.25))); // r = 0 + 2 × 0.25 = 0.5
    // grey = trunc(0.2989R + 0.587G + 0.114B): 59, 159 → mean 109
    expect(Array.from(a)).toEqual([104, 79, 54, 154, 129, 104]);
    const s = planStages({ shape: [1, 2, 3], dtype: 'uint8' }, [RandomSaturation(1, 1)]).stages[0]!;
    const b = src.slice();
    s.run(b, b, ctx(fixed(0, 0.25)));
    expect(Array.from(b)).toEqual([79, 54, 29, 179, 154, 129]);
  });

  it('normalize to float16 bits and Convert after normalize; fused into one stage', () => {
    const plan = planStages({ shape: [1, 1, 3], dtype: 'uint8' }, [NormalizeImage([0, 10, 20], [1, 2, 4], 'float16'), ToCHW()]);
    expect(plan.stages).toHaveLength(1);
    expect(plan.output).toEqual({ shape: [3, 1, 1], dtype: 'float16' });
    const out = new Uint16Array(3);
    plan.stages[0]!.run(img([[1, 20, 40]]), out, ctx(rngFor(0, 0, 0)));
    expect(Array.from(out)).toEqual([toFloat16Bits(1), toFloat16Bits(5), toFloat16Bits(5)]);
    const conv = planStages({ shape: [1, 1, 3], dtype: 'uint8' }, [NormalizeImage([0, 0, 0], [2, 2, 2]), Convert('int16')]);
    const o2 = new Int16Array(3);
    conv.stages[0]!.run(img([[3, 5, 255]]), o2, ctx(rngFor(0, 0, 0)));
    expect(Array.from(o2)).toEqual([1, 2, 127]);
  });

  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])('flip %s / ToCHW %s without a value map equals the definition', (flip, chw) => {
    const H = 3;
    const W = 4;
    const src = Uint8Array.from({ length: H * W * 3 }, (_, i) => (i * 7) % 256);
    const ops = [{ op: 'random_horizontal_flip' as const, p: flip ? 1 : 0 }, ...(chw ? [ToCHW()] : [])];
    const { stages } = planStages({ shape: [H, W, 3], dtype: 'uint8' }, ops);
    const out = new Uint8Array(H * W * 3);
    stages[0]!.run(src, out, ctx(fixed(0.5)));
    const want = new Uint8Array(H * W * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        for (let c = 0; c < 3; c++) {
          const v = src[(y * W + (flip ? W - 1 - x : x)) * 3 + c]!;
          want[chw ? (c * H + y) * W + x : (y * W + x) * 3 + c] = v;
        }
    expect(out).toEqual(want);
  });

  it('image mixup mixes each sample with the previous one (wrapping)', () => {
    const st = new ImageMixupStage({ shape: [2], dtype: 'float32' }, { op: 'image_mixup', alpha: 1, sameLambda: true });
    const src = Float32Array.from([0, 0, 10, 10, 20, 20]);
    const dst = new Float32Array(6);
    st.run(src, dst, 3, { seed: 1, epoch: 0, batchIndex: 0 });
    const lam = (dst[2]! - 0) / 10; // row 1 = λ·10 + (1−λ)·0
    expect(lam).toBeGreaterThan(0);
    expect(lam).toBeLessThan(1);
    expect(dst[0]).toBeCloseTo(lam * 0 + (1 - lam) * 20, 4);
    expect(dst[4]).toBeCloseTo(lam * 20 + (1 - lam) * 10, 4);
  });

  it('crop parameters: centre crop of 300×500 at 224/256, RRC fallback, round half to even', () => {
    expect(centerCrop(300, 500, 224 / 256)).toEqual({ y: 19, x: 119, h: 262, w: 262 });
    expect([roundHalfEven(2.5), roundHalfEven(3.5), roundHalfEven(-2.5), roundHalfEven(2.4)]).toEqual([2, 4, -2, 2]);
    // Draws that never fit (scale 1 with an extreme ratio) → the clamped centre crop.
    expect(randomResizedCrop(100, 400, [1, 1], [3 / 4, 4 / 3], fixed(0.99))).toEqual({ y: 0, x: 133, h: 100, w: 133 });
    const c = randomResizedCrop(300, 400, [0.08, 1], [3 / 4, 4 / 3], rngFor(3, 0, 7));
    expect(c.y + c.h).toBeLessThanOrEqual(300);
    expect(c.x + c.w).toBeLessThanOrEqual(400);
  });

  it('ops on the wrong input are rejected with a message', () => {
    expect(() => planStages({ shape: [1], dtype: 'int64' }, [RandomBrightness(0.2)])).toThrow(/uint8 images/);
    expect(() =>
      planStages({ shape: [2, 2, 3], dtype: 'uint8' }, [{ op: 'image_mixup', alpha: 1, sameLambda: true }, RandomBrightness(0.2)]),
    ).toThrow(/mixup/);
  });
});

// FFCV's NormalizeImage casts its float64 table with numpy; its Convert is torch's
// tensor.type(). The values below were printed by numpy 1.24 / torch 1.13 (x86-64); the
// interop suite (test/interop/loader-pixels.test.ts) checks whole batches against FFCV.
describe('casts as FFCV makes them', () => {
  it('float64 → float16: numpy rounds once (NormalizeImage), torch through float32 (Convert)', () => {
    const x = 1 + 2 ** -11 + 2 ** -40; // just past a float16 tie; float32 rounds it onto the tie
    expect(float16Bits(x)).toBe(0x3c01); // numpy: 1.001
    expect(toFloat16Bits(x)).toBe(0x3c00); // torch: 1.0
    const cases: Array<[number, number]> = [
      [65504, 0x7bff],
      [65519.99, 0x7bff],
      [65520, 0x7c00],
      [1e9, 0x7c00],
      [-1e9, 0xfc00],
      [2 ** -24, 0x0001],
      [2 ** -25, 0x0000],
      [3 * 2 ** -25, 0x0002],
      [2 ** -25 * 1.0001, 0x0001],
      [2 ** -14, 0x0400],
      [2 ** -14 - 2 ** -26, 0x0400],
      [0.1, 0x2e66],
      [1 / 3, 0x3555],
      [-0, 0x8000],
      [NaN, 0x7e00],
    ];
    for (const [v, bits] of cases) expect(float16Bits(v), String(v)).toBe(bits);
  });

  it('torch casts: float → integer truncates through int32 and wraps; integer → integer wraps', () => {
    const xs = [-2.6, -1.5, -0.5, 0.4, 1.7, 255.9, 256.5, 300.2, -129, 40000, 70000.7, -3e9, 3e9].map(Math.fround);
    const cast = (to: 'uint8' | 'int8' | 'int16' | 'int32'): number[] => xs.map((x) => torchCast(x, 'float32', to));
    expect(cast('uint8')).toEqual([254, 255, 0, 0, 1, 255, 0, 44, 127, 64, 112, 0, 0]);
    expect(cast('int8')).toEqual([-2, -1, 0, 0, 1, -1, 0, 44, 127, 64, 112, 0, 0]);
    expect(cast('int16')).toEqual([-2, -1, 0, 0, 1, 255, 256, 300, -129, -25536, 4464, 0, 0]);
    expect(cast('int32')).toEqual([-2, -1, 0, 0, 1, 255, 256, 300, -129, 40000, 70000, -2147483648, -2147483648]);
    expect([0, 127, 128, 200, 255].map((v) => torchCast(v, 'uint8', 'int8'))).toEqual([0, 127, -128, -56, -1]);
  });

  it('the fused pass rounds after every op: Normalize(float32) then Convert(float64) keeps the float32 values', () => {
    const mean = [123.675, 116.28, 103.53];
    const std = [58.395, 57.12, 57.375];
    const px = img([[0, 77, 255]]);
    const f64 = new Float64Array(3);
    planStages({ shape: [1, 1, 3], dtype: 'uint8' }, [NormalizeImage(mean, std, 'float32'), Convert('float64')]).stages[0]!.run(
      px,
      f64,
      ctx(rngFor(0, 0, 0)),
    );
    expect(Array.from(f64)).toEqual([0, 77, 255].map((v, c) => Math.fround((v - mean[c]!) / std[c]!)));
    // Negative normalized values wrap in a uint8 Convert, as torch's.
    const u8 = new Uint8Array(3);
    planStages({ shape: [1, 1, 3], dtype: 'uint8' }, [NormalizeImage(mean, std), Convert('uint8')]).stages[0]!.run(
      px,
      u8,
      ctx(rngFor(0, 0, 0)),
    );
    expect(Array.from(u8)).toEqual([254, 0, 2]); // −2.12 → −2 → 254; −0.69 → 0
    // NormalizeImage(float16) rounds the float64 table once (numpy), Convert(float16) through float32 (torch).
    const h1 = new Uint16Array(3);
    planStages({ shape: [1, 1, 3], dtype: 'uint8' }, [NormalizeImage(mean, std, 'float16')]).stages[0]!.run(px, h1, ctx(rngFor(0, 0, 0)));
    expect(Array.from(h1)).toEqual([0, 77, 255].map((v, c) => float16Bits((v - mean[c]!) / std[c]!)));
  });

  it('Convert outside the pixel pass: float16 read and written as bits, int64 kept exact', () => {
    const h = new ConvertStage({ shape: [3], dtype: 'float32' }, { op: 'convert', dtype: 'float16' });
    const out = new Uint16Array(3);
    h.run(Float32Array.from([1, -2.5, 65520]), out);
    expect(Array.from(out)).toEqual([0x3c00, 0xc100, 0x7c00]);
    const back = new Float32Array(3);
    new ConvertStage({ shape: [3], dtype: 'float16' }, { op: 'convert', dtype: 'float32' }).run(out, back);
    expect(Array.from(back)).toEqual([1, -2.5, Infinity]);
    const big = new BigInt64Array(2);
    new ConvertStage({ shape: [2], dtype: 'float64' }, { op: 'convert', dtype: 'int64' }).run(
      Float64Array.from([-7.9, 2 ** 40 + 0.5]),
      big,
    );
    expect(Array.from(big)).toEqual([-7n, 2n ** 40n]);
    const i16 = new Int16Array(2);
    new ConvertStage({ shape: [2], dtype: 'int64' }, { op: 'convert', dtype: 'int16' }).run(BigInt64Array.from([40000n, -1n]), i16);
    expect(Array.from(i16)).toEqual([-25536, -1]);
  });
});

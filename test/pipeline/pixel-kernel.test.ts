import { describe, expect, it } from 'vitest';
import { mapPixels } from '../../core/native/pixel-map.js';
import { NativeError } from '../../core/native/native-error.js';
import { byteSize, elementCount, viewOf } from '../../core/pipeline/dtypes.js';
import { FusedPixelStage, type PixelOp } from '../../core/pipeline/pixel-kernel.js';
import { rngFor } from '../../core/pipeline/rng.js';
import { Convert, Cutout, NormalizeImage, RandomBrightness, RandomHorizontalFlip, ToCHW } from '../../core/pipeline/spec.js';
import { PipelineError } from '../../core/pipeline/stage.js';

const rep = (C: number, v: number[]): number[] => Array.from({ length: C }, (_, i) => v[i % v.length]!);
const chains: Array<[string, (C: number) => PixelOp[]]> = [
  ['flip', () => [RandomHorizontalFlip(1)] as PixelOp[]],
  ['flip + CHW', () => [RandomHorizontalFlip(0.5), ToCHW()] as PixelOp[]],
  ['CHW', () => [ToCHW()] as PixelOp[]],
  ['brightness', () => [RandomBrightness(0.4, 1)] as PixelOp[]],
  ['brightness + flip + CHW', () => [RandomBrightness(0.4, 0.7), RandomHorizontalFlip(), ToCHW()] as PixelOp[]],
  [
    'normalize float32 + CHW',
    (C) => [RandomHorizontalFlip(), NormalizeImage(rep(C, [123.7, 116.3, 103.5]), rep(C, [58.4, 57.1, 57.4])), ToCHW()] as PixelOp[],
  ],
  [
    'normalize float16',
    (C) => [NormalizeImage(rep(C, [123.7, 116.3, 103.5]), rep(C, [58.4, 57.1, 57.4]), 'float16'), RandomHorizontalFlip()] as PixelOp[],
  ],
  ['normalize float64 + CHW', (C) => [NormalizeImage(rep(C, [0]), rep(C, [255]), 'float64'), ToCHW()] as PixelOp[]],
  ['normalize + convert int16', (C) => [NormalizeImage(rep(C, [128]), rep(C, [0.5])), Convert('int16'), ToCHW()] as PixelOp[]],
  ['convert int8 (wraps as a JS store)', () => [Convert('int8'), RandomHorizontalFlip()] as PixelOp[]],
  ['convert float32', () => [RandomHorizontalFlip(), Convert('float32')] as PixelOp[]],
];

describe('fused pixel pass: the C++ kernel gives the same bytes as the JS one', () => {
  for (const [name, chain] of chains) {
    for (const [H, W, C] of [
      [13, 17, 3],
      [1, 1, 3],
      [5, 9, 1],
      [4, 6, 4],
    ] as const) {
      it(`${name}, ${H}x${W}x${C}`, () => {
        const ops = chain(C);
        const input = { shape: [H, W, C], dtype: 'uint8' as const };
        const js = new FusedPixelStage(input, ops);
        const nat = new FusedPixelStage(input, ops, mapPixels);
        expect(nat.output).toEqual(js.output);
        const src = new Uint8Array(H * W * C);
        for (let i = 0; i < src.length; i++) src[i] = (i * 37 + 11) & 255;
        for (let sample = 0; sample < 6; sample++) {
          const a = viewOf(js.output.dtype, new ArrayBuffer(byteSize(js.output)), 0, elementCount(js.output));
          // The native kernel writes into shared memory in the loader: test it there.
          const b = viewOf(nat.output.dtype, new SharedArrayBuffer(byteSize(nat.output)), 0, elementCount(nat.output));
          js.run(src, a, { sampleId: sample, epoch: 0, rng: rngFor(3, 0, sample, 1) });
          nat.run(src, b, { sampleId: sample, epoch: 0, rng: rngFor(3, 0, sample, 1) });
          expect(new Uint8Array(b.buffer)).toEqual(new Uint8Array(a.buffer));
        }
      });
    }
  }

  it('flip/CHW-only stages (no table) flip the same samples as the table path and match a hand-made CHW mirror', () => {
    const input = { shape: [2, 3, 3], dtype: 'uint8' as const };
    const src = Uint8Array.from([0, 100, 200, 1, 101, 201, 2, 102, 202, 10, 110, 210, 11, 111, 211, 12, 112, 212]);
    const mirroredChw = [2, 1, 0, 12, 11, 10, 102, 101, 100, 112, 111, 110, 202, 201, 200, 212, 211, 210];
    const plainChw = [0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112, 200, 201, 202, 210, 211, 212];
    // Brightness with p = 0 draws its numbers after the flip's but changes nothing: the table path.
    const withTable = [RandomHorizontalFlip(0.5), RandomBrightness(0.5, 0), ToCHW()] as PixelOp[];
    const layoutOnly = [RandomHorizontalFlip(0.5), ToCHW()] as PixelOp[];
    let flipped = 0;
    for (const kernel of [undefined, mapPixels]) {
      for (let id = 0; id < 40; id++) {
        const a = new Uint8Array(18);
        const b = new Uint8Array(18);
        new FusedPixelStage(input, layoutOnly, kernel).run(src, a, { sampleId: id, epoch: 0, rng: rngFor(1, 0, id, 1) });
        new FusedPixelStage(input, withTable, kernel).run(src, b, { sampleId: id, epoch: 0, rng: rngFor(1, 0, id, 1) });
        expect([...a]).toEqual([...b]);
        expect([mirroredChw, plainChw]).toContainEqual([...a]);
        if (a[0] === 2) flipped++;
      }
    }
    expect(flipped).toBeGreaterThan(10); // both outcomes occur
    expect(flipped).toBeLessThan(70);
  });

  it('mirrors and transposes a known 2x3 RGB image', () => {
    // pixels p(y,x) = [10y+x, 100+10y+x, 200+10y+x]
    const src = Uint8Array.from([0, 100, 200, 1, 101, 201, 2, 102, 202, 10, 110, 210, 11, 111, 211, 12, 112, 212]);
    const dst = new Uint8Array(18);
    mapPixels(src, dst, null, { height: 2, width: 3, channels: 3, elemBytes: 1, flip: true, chw: true });
    expect([...dst]).toEqual([2, 1, 0, 12, 11, 10, 102, 101, 100, 112, 111, 110, 202, 201, 200, 212, 211, 210]);
  });

  it('checks its buffers: too small, overlapping, bad element size', () => {
    const src = new Uint8Array(12);
    const o = { height: 2, width: 2, channels: 3, elemBytes: 1, flip: false, chw: true };
    expect(() => mapPixels(src, new Uint8Array(11), null, o)).toThrow(NativeError);
    expect(() => mapPixels(src, src, null, o)).toThrow(/overlap/);
    expect(() => mapPixels(src, new Uint8Array(48), new Uint8Array(3 * 256 * 4), { ...o, elemBytes: 3 })).toThrow(/elemBytes/);
    expect(() => mapPixels(src, new Uint8Array(48), new Uint8Array(100), { ...o, elemBytes: 4 })).toThrow(/lut/);
  });
});

describe('fused pixel pass: each op checks its own place in it (its `pixel` part in ops/<op>.ts)', () => {
  const input = { shape: [2, 2, 3], dtype: 'uint8' } as const;
  const norm = NormalizeImage([0, 0, 0], [1, 1, 1]);
  it.each<[string, PixelOp[], RegExp]>([
    ['NormalizeImage after Convert', [Convert('float32'), norm], /NormalizeImage must come before Convert/],
    ['NormalizeImage with 2 means for 3 channels', [NormalizeImage([0, 0], [1, 1])], /NormalizeImage needs 3 means and stds/],
    ['RandomBrightness after NormalizeImage', [norm, RandomBrightness(0.2)], /RandomBrightness works on uint8 pixels/],
    ['Convert to int64', [RandomHorizontalFlip(), Convert('int64')], /Convert to 64-bit integers is not supported/],
    ['a per-sample op', [RandomHorizontalFlip(), Cutout(1)], /cutout cannot join a fused pixel pass/],
  ])('refuses %s', (_, ops, message) => {
    expect(() => new FusedPixelStage(input, ops)).toThrow(PipelineError);
    expect(() => new FusedPixelStage(input, ops)).toThrow(message);
  });

  it('its output follows the chain: the last dtype, CHW when ToCHW is in it', () => {
    expect(new FusedPixelStage(input, [RandomHorizontalFlip(), norm, Convert('float16'), ToCHW()]).output).toEqual({
      shape: [3, 2, 2],
      dtype: 'float16',
    });
    expect(new FusedPixelStage(input, [RandomBrightness(0.1), RandomHorizontalFlip()]).output).toEqual({
      shape: [2, 2, 3],
      dtype: 'uint8',
    });
  });
});

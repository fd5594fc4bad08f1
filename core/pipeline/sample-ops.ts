import { float16Bits, float16Value } from '../format/float16.js';
import { elementCount, torchCast, type OutputArray, type TensorSpec } from './dtypes.js';
import type { CustomSampleFn, OpSpec } from './spec.js';
import { PipelineError, requireImage, type SampleStage, type StageContext } from './stage.js';

type NumArray = Exclude<OutputArray, BigInt64Array | BigUint64Array>;

/** RandomTranslate: pad by p with `fill`, take a random H×W window (dy, dx in 0..2p). In place. */
export class TranslateStage implements SampleStage {
  readonly name = 'random_translate';
  readonly inPlace = true;
  readonly output: TensorSpec;
  private readonly scratch: Uint8Array;
  constructor(
    readonly input: TensorSpec,
    private readonly o: Extract<OpSpec, { op: 'random_translate' }>,
  ) {
    requireImage(this.name, input);
    this.output = input;
    this.scratch = new Uint8Array(elementCount(input));
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const p = this.o.padding;
    const dy = ctx.rng.int(2 * p + 1) - p;
    const dx = ctx.rng.int(2 * p + 1) - p;
    const s = src as Uint8Array;
    this.scratch.set(s);
    for (let y = 0; y < H; y++) {
      const sy = y + dy;
      for (let x = 0; x < W; x++) {
        const sx = x + dx;
        const di = (y * W + x) * C;
        const inside = sy >= 0 && sy < H && sx >= 0 && sx < W;
        for (let c = 0; c < C; c++) s[di + c] = inside ? this.scratch[(sy * W + sx) * C + c]! : (this.o.fill[c] ?? 0);
      }
    }
  }
}

/** Cutout: a size×size square at a uniform position set to `fill`. In place. */
export class CutoutStage implements SampleStage {
  readonly name = 'cutout';
  readonly inPlace = true;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: Extract<OpSpec, { op: 'cutout' }>,
  ) {
    const [H, W] = requireImage(this.name, input);
    if (o.size > H || o.size > W) throw new PipelineError('BAD_PIPELINE', `Cutout size ${o.size} exceeds the image ${H}x${W}`);
    this.output = input;
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const k = this.o.size;
    const y0 = ctx.rng.int(H - k + 1);
    const x0 = ctx.rng.int(W - k + 1);
    const s = src as Uint8Array;
    for (let y = y0; y < y0 + k; y++)
      for (let x = x0; x < x0 + k; x++) for (let c = 0; c < C; c++) s[(y * W + x) * C + c] = this.o.fill[c] ?? 0;
  }
}

/**
 * RandomContrast / RandomSaturation: blend with the grey image (saturation) or its mean
 * (contrast), factor r ~ U(max(0, 1−m), 1+m) with probability p. In place, truncating.
 */
export class BlendStage implements SampleStage {
  readonly inPlace = true;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: Extract<OpSpec, { op: 'random_contrast' | 'random_saturation' }>,
  ) {
    requireImage(o.op, input);
    this.output = input;
  }
  get name(): string {
    return this.o.op;
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const apply = ctx.rng.next() < this.o.p;
    const r = ctx.rng.uniform(Math.max(0, 1 - this.o.magnitude), 1 + this.o.magnitude);
    if (!apply) return;
    const s = src as Uint8Array;
    const n = s.length / 3;
    const grey = (i: number): number => Math.trunc(0.2989 * s[i]! + 0.587 * s[i + 1]! + 0.114 * s[i + 2]!);
    if (this.o.op === 'random_contrast') {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += grey(i * 3);
      const mu = sum / n;
      for (let i = 0; i < s.length; i++) s[i] = Math.trunc(Math.min(255, Math.max(0, r * s[i]! + (1 - r) * mu)));
    } else {
      for (let i = 0; i < n * 3; i += 3) {
        const g = (1 - r) * grey(i);
        for (let c = 0; c < 3; c++) s[i + c] = Math.trunc(Math.min(255, Math.max(0, r * s[i + c]! + g)));
      }
    }
  }
}

/** ReplaceLabel: samples whose id is listed get `label`. In place. */
export class ReplaceLabelStage implements SampleStage {
  readonly name = 'replace_label';
  readonly inPlace = true;
  readonly output: TensorSpec;
  private readonly ids: Set<number>;
  constructor(
    readonly input: TensorSpec,
    o: Extract<OpSpec, { op: 'replace_label' }>,
    private readonly label = o.label,
  ) {
    this.output = input;
    this.ids = new Set(o.indices);
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    if (!this.ids.has(ctx.sampleId)) return;
    if (src instanceof BigInt64Array || src instanceof BigUint64Array) src.fill(BigInt(this.label));
    else src.fill(this.label);
  }
}

/**
 * Convert (outside a fused image pass): element-wise cast into the output buffer, as
 * torch's `tensor.type(dtype)` (FFCV's Convert; torchCast has the rules). float16 is read
 * and written as its bit patterns; 64-bit integers stay BigInts (float → int64 truncates).
 */
export class ConvertStage implements SampleStage {
  readonly name = 'convert';
  readonly inPlace = false;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    o: Extract<OpSpec, { op: 'convert' }>,
  ) {
    this.output = { shape: input.shape, dtype: o.dtype };
  }
  run(src: OutputArray, dst: OutputArray): void {
    const from = this.input.dtype;
    const to = this.output.dtype;
    const big = dst instanceof BigInt64Array || dst instanceof BigUint64Array;
    for (let i = 0; i < src.length; i++) {
      const v = src[i]!;
      if (big) {
        const w = typeof v === 'bigint' ? v : int64Of(from === 'float16' ? float16Value(v) : v);
        (dst as BigInt64Array)[i] = to === 'uint64' ? BigInt.asUintN(64, w) : BigInt.asIntN(64, w);
        continue;
      }
      // int64 sources: Number() rounds once to nearest (exact below 2^53).
      const x = typeof v === 'bigint' ? Number(v) : from === 'float16' ? float16Value(v) : v;
      const y = torchCast(x, from === 'int64' || from === 'uint64' ? 'int32' : from, to);
      (dst as NumArray)[i] = to === 'float16' ? float16Bits(y) : y;
    }
  }
}

/** float → int64 as cvttsd2si: truncation; NaN and out-of-range values give INT64_MIN. */
function int64Of(x: number): bigint {
  const t = Math.trunc(x);
  return t >= -(2 ** 63) && t < 2 ** 63 ? BigInt(t) : -(2n ** 63n);
}

/** ToCHW for non-uint8 (H, W, C) inputs: a transpose into the output buffer. */
export class TransposeStage implements SampleStage {
  readonly name = 'to_chw';
  readonly inPlace = false;
  readonly output: TensorSpec;
  constructor(readonly input: TensorSpec) {
    if (input.shape.length !== 3)
      throw new PipelineError('UNSUPPORTED_INPUT', `ToCHW needs (H, W, C) input, got [${input.shape.join(', ')}]`);
    const [H, W, C] = input.shape as [number, number, number];
    this.output = { shape: [C, H, W], dtype: input.dtype };
  }
  run(src: OutputArray, dst: OutputArray): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const s = src as NumArray;
    const d = dst as NumArray;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) for (let c = 0; c < C; c++) d[(c * H + y) * W + x] = s[(y * W + x) * C + c]!;
  }
}

/** A user function over typed arrays, rebuilt from its source text in each worker. */
export class CustomStage implements SampleStage {
  readonly inPlace = false;
  readonly output: TensorSpec;
  readonly name: string;
  private readonly fn: CustomSampleFn;
  constructor(
    readonly input: TensorSpec,
    o: Extract<OpSpec, { op: 'custom' }>,
  ) {
    this.name = `custom:${o.name}`;
    this.output = o.output ?? input;
    try {
      this.fn = new Function(`return (${o.source});`)() as CustomSampleFn;
    } catch (e) {
      throw new PipelineError(
        'BAD_PIPELINE',
        `custom op "${o.name}": its function does not compile on its own (${(e as Error).message}); it must be self-contained`,
      );
    }
    if (typeof this.fn !== 'function') throw new PipelineError('BAD_PIPELINE', `custom op "${o.name}" is not a function`);
  }
  run(src: OutputArray, dst: OutputArray, ctx: StageContext): void {
    this.fn(src as NumArray, dst as NumArray, { shape: this.input.shape, sampleId: ctx.sampleId, epoch: ctx.epoch, random: ctx.rng.next });
  }
}

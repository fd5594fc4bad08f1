import { elementCount, type OutputArray, type TensorSpec } from './dtypes.js';
import { rngFor, type Rng } from './rng.js';
import type { OpSpec } from './spec.js';
import { PipelineError } from './stage.js';

export interface BatchContext {
  seed: number;
  epoch: number;
  batchIndex: number;
}

/**
 * An op over a whole batch (mixing samples), run once the batch is decoded. Image and
 * label mixup draw λ from the same (seed, epoch, batch) stream, so they agree when
 * configured alike, as in FFCV.
 */
export interface BatchStage {
  readonly name: string;
  readonly output: TensorSpec;
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void;
}

/** Marsaglia–Tsang gamma sampler (shape k, scale 1). */
function gamma(k: number, rng: Rng): number {
  if (k < 1) return gamma(k + 1, rng) * Math.pow(rng.next() || Number.MIN_VALUE, 1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      // Box–Muller normal
      const u1 = rng.next() || Number.MIN_VALUE;
      x = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

function lambdas(alpha: number, same: boolean, n: number, ctx: BatchContext): Float64Array {
  const rng = rngFor(ctx.seed, ctx.epoch, ctx.batchIndex, 0x6d1);
  const draw = (): number => {
    const a = gamma(alpha, rng);
    const b = gamma(alpha, rng);
    return a / (a + b);
  };
  const out = new Float64Array(n);
  if (same) out.fill(draw());
  else for (let i = 0; i < n; i++) out[i] = draw();
  return out;
}

type NumArray = Exclude<OutputArray, BigInt64Array | BigUint64Array>;

export class ImageMixupStage implements BatchStage {
  readonly name = 'image_mixup';
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: Extract<OpSpec, { op: 'image_mixup' }>,
  ) {
    if (input.dtype === 'int64' || input.dtype === 'uint64' || input.dtype === 'float16')
      throw new PipelineError('UNSUPPORTED_INPUT', `ImageMixup cannot mix ${input.dtype}`);
    this.output = input;
  }
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void {
    const row = elementCount(this.input);
    const lam = lambdas(this.o.alpha, this.o.sameLambda, n, ctx);
    const s = src as NumArray;
    const d = dst as NumArray;
    const isInt = !(d instanceof Float32Array || d instanceof Float64Array);
    for (let i = 0; i < n; i++) {
      const j = (i + n - 1) % n;
      const l = lam[i]!;
      for (let k = 0; k < row; k++) {
        const v = l * s[i * row + k]! + (1 - l) * s[j * row + k]!;
        d[i * row + k] = isInt ? Math.trunc(v) : v;
      }
    }
  }
}

export class LabelMixupStage implements BatchStage {
  readonly name = 'label_mixup';
  readonly output: TensorSpec = { shape: [3], dtype: 'float32' };
  constructor(
    readonly input: TensorSpec,
    private readonly o: Extract<OpSpec, { op: 'label_mixup' }>,
  ) {
    if (elementCount(input) !== 1)
      throw new PipelineError('UNSUPPORTED_INPUT', `LabelMixup needs one label per sample, got [${input.shape.join(', ')}]`);
  }
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void {
    const lam = lambdas(this.o.alpha, this.o.sameLambda, n, ctx);
    const d = dst as Float32Array;
    for (let i = 0; i < n; i++) {
      const j = (i + n - 1) % n;
      d[i * 3] = Number(src[i]!);
      d[i * 3 + 1] = Number(src[j]!);
      d[i * 3 + 2] = lam[i]!;
    }
  }
}

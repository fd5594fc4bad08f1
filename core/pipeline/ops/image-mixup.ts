import { z } from 'zod';
import { elementCount, type NumericArray, type OutputArray, type TensorSpec } from '../dtypes.js';
import { py } from '../python-code.js';
import { PipelineError, type BatchContext, type BatchStage } from '../stage.js';
import { mixupLambdas } from './mixup-lambdas.js';
import type { OpType } from './op-type.js';

/** ImageMixup: each image blended with another of its batch, λ ~ Beta(α, α) (per batch when sameLambda). */
export const schema = z
  .object({ op: z.literal('image_mixup'), alpha: z.number().positive(), sameLambda: z.boolean().default(true) })
  .strict();
export type ImageMixupSpec = z.output<typeof schema>;

export const ImageMixup = (alpha: number, sameLambda = true): ImageMixupSpec => ({ op: 'image_mixup', alpha, sameLambda });

export class ImageMixupStage implements BatchStage {
  readonly name = 'image_mixup';
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: ImageMixupSpec,
  ) {
    if (input.dtype === 'int64' || input.dtype === 'uint64' || input.dtype === 'float16')
      throw new PipelineError('UNSUPPORTED_INPUT', `ImageMixup cannot mix ${input.dtype}`);
    this.output = input;
  }
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void {
    const row = elementCount(this.input);
    const lam = mixupLambdas(this.o.alpha, this.o.sameLambda, n, ctx);
    const s = src as NumericArray;
    const d = dst as NumericArray;
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

export const imageMixup: OpType<ImageMixupSpec> = {
  op: 'image_mixup',
  batchStage: (input, s) => new ImageMixupStage(input, s),
  ffcvImports: ['ImageMixup'],
  python: (s) => [`ImageMixup(alpha=${s.alpha}, same_lambda=${py(s.sameLambda)})`],
};

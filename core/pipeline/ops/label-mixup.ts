import { z } from 'zod';
import { elementCount, type OutputArray, type TensorSpec } from '../dtypes.js';
import { py } from '../python-code.js';
import { PipelineError, type BatchContext, type BatchStage } from '../stage.js';
import { mixupLambdas } from './mixup-lambdas.js';
import type { OpType } from './op-type.js';

/** LabelMixup: (label, partner's label, λ) per sample, with the same λ draws as ImageMixup. */
export const schema = z
  .object({ op: z.literal('label_mixup'), alpha: z.number().positive(), sameLambda: z.boolean().default(true) })
  .strict();
export type LabelMixupSpec = z.output<typeof schema>;

export const LabelMixup = (alpha: number, sameLambda = true): LabelMixupSpec => ({ op: 'label_mixup', alpha, sameLambda });

export class LabelMixupStage implements BatchStage {
  readonly name = 'label_mixup';
  readonly output: TensorSpec = { shape: [3], dtype: 'float32' };
  constructor(
    readonly input: TensorSpec,
    private readonly o: LabelMixupSpec,
  ) {
    if (elementCount(input) !== 1)
      throw new PipelineError('UNSUPPORTED_INPUT', `LabelMixup needs one label per sample, got [${input.shape.join(', ')}]`);
  }
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void {
    const lam = mixupLambdas(this.o.alpha, this.o.sameLambda, n, ctx);
    const d = dst as Float32Array;
    for (let i = 0; i < n; i++) {
      const j = (i + n - 1) % n;
      d[i * 3] = Number(src[i]!);
      d[i * 3 + 1] = Number(src[j]!);
      d[i * 3 + 2] = lam[i]!;
    }
  }
}

export const labelMixup: OpType<LabelMixupSpec> = {
  op: 'label_mixup',
  batchStage: (input, s) => new LabelMixupStage(input, s),
  ffcvImports: ['LabelMixup'],
  python: (s) => [`LabelMixup(alpha=${s.alpha}, same_lambda=${py(s.sameLambda)})`],
};

import { z } from 'zod';
import { LabelMixupStage } from '../batch-ops.js';
import { py } from '../python-code.js';
import type { OpType } from './op-type.js';

/** LabelMixup: (label, partner's label, λ) per sample, with the same λ draws as ImageMixup. */
export const schema = z
  .object({ op: z.literal('label_mixup'), alpha: z.number().positive(), sameLambda: z.boolean().default(true) })
  .strict();
export type LabelMixupSpec = z.output<typeof schema>;

export const LabelMixup = (alpha: number, sameLambda = true): LabelMixupSpec => ({ op: 'label_mixup', alpha, sameLambda });

export const labelMixup: OpType<LabelMixupSpec> = {
  op: 'label_mixup',
  batchStage: (input, s) => new LabelMixupStage(input, s),
  ffcvImports: ['LabelMixup'],
  python: (s) => [`LabelMixup(alpha=${s.alpha}, same_lambda=${py(s.sameLambda)})`],
};

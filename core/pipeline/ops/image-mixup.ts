import { z } from 'zod';
import { ImageMixupStage } from '../batch-ops.js';
import { py } from '../python-code.js';
import type { OpType } from './op-type.js';

/** ImageMixup: each image blended with another of its batch, λ ~ Beta(α, α) (per batch when sameLambda). */
export const schema = z
  .object({ op: z.literal('image_mixup'), alpha: z.number().positive(), sameLambda: z.boolean().default(true) })
  .strict();
export type ImageMixupSpec = z.output<typeof schema>;

export const ImageMixup = (alpha: number, sameLambda = true): ImageMixupSpec => ({ op: 'image_mixup', alpha, sameLambda });

export const imageMixup: OpType<ImageMixupSpec> = {
  op: 'image_mixup',
  batchStage: (input, s) => new ImageMixupStage(input, s),
  ffcvImports: ['ImageMixup'],
  python: (s) => [`ImageMixup(alpha=${s.alpha}, same_lambda=${py(s.sameLambda)})`],
};

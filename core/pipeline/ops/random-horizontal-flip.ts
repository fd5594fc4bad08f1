import { z } from 'zod';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomHorizontalFlip: mirror the image left-right with probability p (a coordinate change of the fused pass). */
export const schema = z.object({ op: z.literal('random_horizontal_flip'), p: probability.default(0.5) }).strict();
export type RandomHorizontalFlipSpec = z.output<typeof schema>;

export const RandomHorizontalFlip = (p = 0.5): RandomHorizontalFlipSpec => ({ op: 'random_horizontal_flip', p });

export const randomHorizontalFlip: OpType<RandomHorizontalFlipSpec> = {
  op: 'random_horizontal_flip',
  pixel: {
    layoutOnly: true,
    check: (_s, before) => before,
    apply: (s, pass, rng) => {
      if (rng.next() < s.p) pass.flip = !pass.flip;
    },
  },
  ffcvImports: ['RandomHorizontalFlip'],
  python: (s) => [`RandomHorizontalFlip(flip_prob=${s.p})`],
};

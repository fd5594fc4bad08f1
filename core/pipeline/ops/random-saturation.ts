import { z } from 'zod';
import { BlendStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomSaturation: blend with the grey image, factor r ~ U(max(0, 1−m), 1+m), with probability p. */
export const schema = z.object({ op: z.literal('random_saturation'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomSaturationSpec = z.output<typeof schema>;

export const RandomSaturation = (magnitude: number, p = 0.5): RandomSaturationSpec => ({ op: 'random_saturation', magnitude, p });

export const randomSaturation: OpType<RandomSaturationSpec> = {
  op: 'random_saturation',
  sampleStage: (input, s) => new BlendStage(input, s),
  ffcvImports: ['RandomSaturation'],
  python: (s) => [`RandomSaturation(magnitude=${s.magnitude}, p=${s.p})`],
};

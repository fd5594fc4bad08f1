import { z } from 'zod';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomBrightness: scale values by r ~ U(max(0, 1−m), 1+m) with probability p (a value map of the fused pass). */
export const schema = z.object({ op: z.literal('random_brightness'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomBrightnessSpec = z.output<typeof schema>;

export const RandomBrightness = (magnitude: number, p = 0.5): RandomBrightnessSpec => ({ op: 'random_brightness', magnitude, p });

export const randomBrightness: OpType<RandomBrightnessSpec> = {
  op: 'random_brightness',
  fusable: true,
  ffcvImports: ['RandomBrightness'],
  python: (s) => [`RandomBrightness(magnitude=${s.magnitude}, p=${s.p})`],
};

import { z } from 'zod';
import { BlendStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomContrast: blend with the image's mean grey, factor r ~ U(max(0, 1−m), 1+m), with probability p. */
export const schema = z.object({ op: z.literal('random_contrast'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomContrastSpec = z.output<typeof schema>;

export const RandomContrast = (magnitude: number, p = 0.5): RandomContrastSpec => ({ op: 'random_contrast', magnitude, p });

export const randomContrast: OpType<RandomContrastSpec> = {
  op: 'random_contrast',
  sampleStage: (input, s) => new BlendStage(input, s),
  ffcvImports: ['RandomContrast'],
  python: (s) => [`RandomContrast(magnitude=${s.magnitude}, p=${s.p})`],
};

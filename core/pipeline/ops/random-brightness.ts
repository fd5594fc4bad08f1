import { z } from 'zod';
import { PipelineError } from '../stage.js';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomBrightness: scale values by r ~ U(max(0, 1−m), 1+m) with probability p (a value map of the fused pass). */
export const schema = z.object({ op: z.literal('random_brightness'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomBrightnessSpec = z.output<typeof schema>;

export const RandomBrightness = (magnitude: number, p = 0.5): RandomBrightnessSpec => ({ op: 'random_brightness', magnitude, p });

export const randomBrightness: OpType<RandomBrightnessSpec> = {
  op: 'random_brightness',
  pixel: {
    check: (_s, before) => {
      if (before !== 'uint8')
        throw new PipelineError('BAD_PIPELINE', 'RandomBrightness works on uint8 pixels; put it before NormalizeImage/Convert');
      return before;
    },
    apply: (s, { lut }, rng) => {
      const apply = rng.next() < s.p;
      const r = rng.uniform(Math.max(0, 1 - s.magnitude), 1 + s.magnitude);
      if (apply) for (let i = 0; i < lut.length; i++) lut[i] = Math.trunc(Math.min(255, Math.max(0, r * lut[i]!)));
    },
  },
  ffcvImports: ['RandomBrightness'],
  python: (s) => [`RandomBrightness(magnitude=${s.magnitude}, p=${s.p})`],
};

import { z } from 'zod';
import { py } from '../python-code.js';
import { CutoutStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';
import { rgbFill } from './schema-parts.js';

/** Cutout: a size×size square at a uniform position set to `fill`. */
export const schema = z.object({ op: z.literal('cutout'), size: z.number().int().positive(), fill: rgbFill.default([0, 0, 0]) }).strict();
export type CutoutSpec = z.output<typeof schema>;

export const Cutout = (size: number, fill: readonly [number, number, number] = [0, 0, 0]): CutoutSpec => ({
  op: 'cutout',
  size,
  fill: [...fill],
});

export const cutout: OpType<CutoutSpec> = {
  op: 'cutout',
  sampleStage: (input, s) => new CutoutStage(input, s),
  ffcvImports: ['Cutout'],
  python: (s) => [`Cutout(crop_size=${s.size}, fill=${py(s.fill)})`],
};

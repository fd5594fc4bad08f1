import { z } from 'zod';
import { py } from '../python-code.js';
import { TranslateStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';
import { rgbFill } from './schema-parts.js';

/** RandomTranslate: pad by `padding` with `fill`, then a random window of the image's size. */
export const schema = z
  .object({ op: z.literal('random_translate'), padding: z.number().int().min(0), fill: rgbFill.default([0, 0, 0]) })
  .strict();
export type RandomTranslateSpec = z.output<typeof schema>;

export const RandomTranslate = (padding: number, fill: readonly [number, number, number] = [0, 0, 0]): RandomTranslateSpec => ({
  op: 'random_translate',
  padding,
  fill: [...fill],
});

export const randomTranslate: OpType<RandomTranslateSpec> = {
  op: 'random_translate',
  sampleStage: (input, s) => new TranslateStage(input, s),
  ffcvImports: ['RandomTranslate'],
  python: (s) => [`RandomTranslate(padding=${s.padding}, fill=${py(s.fill)})`],
};

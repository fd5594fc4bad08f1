import { z } from 'zod';
import { BlendStage, grey } from './color-blend.js';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomSaturation: blend with the grey image, factor r ~ U(max(0, 1−m), 1+m), with probability p. */
export const schema = z.object({ op: z.literal('random_saturation'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomSaturationSpec = z.output<typeof schema>;

export const RandomSaturation = (magnitude: number, p = 0.5): RandomSaturationSpec => ({ op: 'random_saturation', magnitude, p });

/** Blends each pixel with the grey image: r·x + (1 − r)·grey. */
export class SaturationStage extends BlendStage<RandomSaturationSpec> {
  protected blend(s: Uint8Array, r: number): void {
    const n = s.length / 3;
    for (let i = 0; i < n * 3; i += 3) {
      const g = (1 - r) * grey(s, i);
      for (let c = 0; c < 3; c++) s[i + c] = Math.trunc(Math.min(255, Math.max(0, r * s[i + c]! + g)));
    }
  }
}

export const randomSaturation: OpType<RandomSaturationSpec> = {
  op: 'random_saturation',
  sampleStage: (input, s) => new SaturationStage(input, s),
  ffcvImports: ['RandomSaturation'],
  python: (s) => [`RandomSaturation(magnitude=${s.magnitude}, p=${s.p})`],
};

import { z } from 'zod';
import { BlendStage, grey } from './color-blend.js';
import type { OpType } from './op-type.js';
import { probability } from './schema-parts.js';

/** RandomContrast: blend with the image's mean grey, factor r ~ U(max(0, 1−m), 1+m), with probability p. */
export const schema = z.object({ op: z.literal('random_contrast'), magnitude: z.number().min(0), p: probability.default(0.5) }).strict();
export type RandomContrastSpec = z.output<typeof schema>;

export const RandomContrast = (magnitude: number, p = 0.5): RandomContrastSpec => ({ op: 'random_contrast', magnitude, p });

/** Blends each pixel with the image's mean grey: r·x + (1 − r)·mean. */
export class ContrastStage extends BlendStage<RandomContrastSpec> {
  protected blend(s: Uint8Array, r: number): void {
    const n = s.length / 3;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += grey(s, i * 3);
    const mu = sum / n;
    for (let i = 0; i < s.length; i++) s[i] = Math.trunc(Math.min(255, Math.max(0, r * s[i]! + (1 - r) * mu)));
  }
}

export const randomContrast: OpType<RandomContrastSpec> = {
  op: 'random_contrast',
  sampleStage: (input, s) => new ContrastStage(input, s),
  ffcvImports: ['RandomContrast'],
  python: (s) => [`RandomContrast(magnitude=${s.magnitude}, p=${s.p})`],
};

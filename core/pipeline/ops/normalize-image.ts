import { z } from 'zod';
import { float16Bits, float16Value } from '../../format/float16.js';
import { PipelineError } from '../stage.js';
import type { OpType } from './op-type.js';

const FLOAT = ['float16', 'float32', 'float64'] as const;

/** NormalizeImage: (x − mean) / std per channel, into a float dtype (a value map of the fused pass). */
export const schema = z
  .object({
    op: z.literal('normalize'),
    mean: z.array(z.number()).length(3),
    std: z.array(z.number().positive()).length(3),
    dtype: z.enum(FLOAT).default('float32'),
  })
  .strict();
export type NormalizeImageSpec = z.output<typeof schema>;

export const NormalizeImage = (
  mean: readonly number[],
  std: readonly number[],
  dtype: (typeof FLOAT)[number] = 'float32',
): NormalizeImageSpec => ({ op: 'normalize', mean: [...mean], std: [...std], dtype });

export const normalizeImage: OpType<NormalizeImageSpec> = {
  op: 'normalize',
  pixel: {
    check: (s, before, channels) => {
      if (s.mean.length !== channels || s.std.length !== channels)
        throw new PipelineError('BAD_PIPELINE', `NormalizeImage needs ${channels} means and stds`);
      if (before !== 'uint8') throw new PipelineError('BAD_PIPELINE', 'NormalizeImage must come before Convert');
      return s.dtype;
    },
    // FFCV's table is float64, cast by numpy: float16 rounds once from float64.
    apply: (s, { lut, channels }) => {
      const round =
        s.dtype === 'float32' ? Math.fround : s.dtype === 'float16' ? (x: number) => float16Value(float16Bits(x)) : (x: number) => x;
      for (let c = 0; c < channels; c++)
        for (let v = 0; v < 256; v++) lut[c * 256 + v] = round((lut[c * 256 + v]! - s.mean[c]!) / s.std[c]!);
    },
  },
  ffcvImports: ['NormalizeImage'],
  python: (s) => [`NormalizeImage(np.array(${JSON.stringify(s.mean)}), np.array(${JSON.stringify(s.std)}), np.${s.dtype})`],
};

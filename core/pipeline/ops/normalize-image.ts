import { z } from 'zod';
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
  fusable: true,
  ffcvImports: ['NormalizeImage'],
  python: (s) => [`NormalizeImage(np.array(${JSON.stringify(s.mean)}), np.array(${JSON.stringify(s.std)}), np.${s.dtype})`],
};

import { z } from 'zod';
import { ConvertStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';
import { elementTypeSchema } from './schema-parts.js';

/** Convert: a cast to `dtype`, as torch's tensor.type() (integer casts wrap). */
export const schema = z.object({ op: z.literal('convert'), dtype: elementTypeSchema }).strict();
export type ConvertSpec = z.output<typeof schema>;

export const Convert = (dtype: ConvertSpec['dtype']): ConvertSpec => ({ op: 'convert', dtype });

/** torch has no uint16/32/64 before 2.3: those casts have no FFCV equivalent. */
const TORCH: Partial<Record<ConvertSpec['dtype'], string>> = {
  uint8: 'torch.uint8',
  int8: 'torch.int8',
  int16: 'torch.int16',
  int32: 'torch.int32',
  float16: 'torch.float16',
  float32: 'torch.float32',
  float64: 'torch.float64',
  int64: 'torch.int64',
};

export const convert: OpType<ConvertSpec> = {
  op: 'convert',
  fusable: true,
  sampleStage: (input, s) => new ConvertStage(input, s),
  ffcvImports: ['ToTensor', 'Convert'],
  python: (s, note) => {
    const t = TORCH[s.dtype];
    if (!t) note(`Convert(${s.dtype}) has no torch dtype; left out`);
    return t ? ['ToTensor()', `Convert(${t})`] : [];
  },
};

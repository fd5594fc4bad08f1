import { z } from 'zod';
import { float16Bits, float16Value } from '../../format/float16.js';
import { torchCast, type NumericArray, type OutputArray, type TensorSpec } from '../dtypes.js';
import { PipelineError, type SampleStage } from '../stage.js';
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

/**
 * Convert (outside a fused image pass): element-wise cast into the output buffer, as
 * torch's `tensor.type(dtype)` (FFCV's Convert; torchCast has the rules). float16 is read
 * and written as its bit patterns; 64-bit integers stay BigInts (float → int64 truncates).
 */
export class ConvertStage implements SampleStage {
  readonly name = 'convert';
  readonly inPlace = false;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    o: ConvertSpec,
  ) {
    this.output = { shape: input.shape, dtype: o.dtype };
  }
  run(src: OutputArray, dst: OutputArray): void {
    const from = this.input.dtype;
    const to = this.output.dtype;
    const big = dst instanceof BigInt64Array || dst instanceof BigUint64Array;
    for (let i = 0; i < src.length; i++) {
      const v = src[i]!;
      if (big) {
        const w = typeof v === 'bigint' ? v : int64Of(from === 'float16' ? float16Value(v) : v);
        (dst as BigInt64Array)[i] = to === 'uint64' ? BigInt.asUintN(64, w) : BigInt.asIntN(64, w);
        continue;
      }
      // int64 sources: Number() rounds once to nearest (exact below 2^53).
      const x = typeof v === 'bigint' ? Number(v) : from === 'float16' ? float16Value(v) : v;
      const y = torchCast(x, from === 'int64' || from === 'uint64' ? 'int32' : from, to);
      (dst as NumericArray)[i] = to === 'float16' ? float16Bits(y) : y;
    }
  }
}

/** float → int64 as cvttsd2si: truncation; NaN and out-of-range values give INT64_MIN. */
function int64Of(x: number): bigint {
  const t = Math.trunc(x);
  return t >= -(2 ** 63) && t < 2 ** 63 ? BigInt(t) : -(2n ** 63n);
}

export const convert: OpType<ConvertSpec> = {
  op: 'convert',
  pixel: {
    check: (s) => {
      if (s.dtype === 'int64' || s.dtype === 'uint64')
        throw new PipelineError('BAD_PIPELINE', 'Convert to 64-bit integers is not supported for images');
      return s.dtype;
    },
    apply: (s, { lut, dtype }) => {
      for (let i = 0; i < lut.length; i++) lut[i] = torchCast(lut[i]!, dtype, s.dtype);
    },
  },
  sampleStage: (input, s) => new ConvertStage(input, s),
  ffcvImports: ['ToTensor', 'Convert'],
  python: (s, note) => {
    const t = TORCH[s.dtype];
    if (!t) note(`Convert(${s.dtype}) has no torch dtype; left out`);
    return t ? ['ToTensor()', `Convert(${t})`] : [];
  },
};

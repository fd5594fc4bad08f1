import { z } from 'zod';
import type { NumericArray, OutputArray, TensorSpec } from '../dtypes.js';
import { PipelineError, type SampleStage } from '../stage.js';
import type { OpType } from './op-type.js';

/** ToCHW: (H, W, C) → (C, H, W); an output index of the fused pass, or its own stage after float ops. */
export const schema = z.object({ op: z.literal('to_chw') }).strict();
export type ToCHWSpec = z.output<typeof schema>;

export const ToCHW = (): ToCHWSpec => ({ op: 'to_chw' });

/** ToCHW for non-uint8 (H, W, C) inputs: a transpose into the output buffer. */
export class TransposeStage implements SampleStage {
  readonly name = 'to_chw';
  readonly inPlace = false;
  readonly output: TensorSpec;
  constructor(readonly input: TensorSpec) {
    if (input.shape.length !== 3)
      throw new PipelineError('UNSUPPORTED_INPUT', `ToCHW needs (H, W, C) input, got [${input.shape.join(', ')}]`);
    const [H, W, C] = input.shape as [number, number, number];
    this.output = { shape: [C, H, W], dtype: input.dtype };
  }
  run(src: OutputArray, dst: OutputArray): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const s = src as NumericArray;
    const d = dst as NumericArray;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) for (let c = 0; c < C; c++) d[(c * H + y) * W + x] = s[(y * W + x) * C + c]!;
  }
}

export const toCHW: OpType<ToCHWSpec> = {
  op: 'to_chw',
  pixel: { layoutOnly: true, chw: true, check: (_s, before) => before, apply: () => {} },
  sampleStage: (input) => new TransposeStage(input),
  ffcvImports: ['ToTensor', 'ToTorchImage'],
  // FFCV permutes torch tensors: the numpy batch becomes a tensor first.
  python: () => ['ToTensor()', 'ToTorchImage()'],
};

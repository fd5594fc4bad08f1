import { z } from 'zod';
import { TransposeStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';

/** ToCHW: (H, W, C) → (C, H, W); an output index of the fused pass, or its own stage after float ops. */
export const schema = z.object({ op: z.literal('to_chw') }).strict();
export type ToCHWSpec = z.output<typeof schema>;

export const ToCHW = (): ToCHWSpec => ({ op: 'to_chw' });

export const toCHW: OpType<ToCHWSpec> = {
  op: 'to_chw',
  fusable: true,
  sampleStage: (input) => new TransposeStage(input),
  ffcvImports: ['ToTensor', 'ToTorchImage'],
  // FFCV permutes torch tensors: the numpy batch becomes a tensor first.
  python: () => ['ToTensor()', 'ToTorchImage()'],
};

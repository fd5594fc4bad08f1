import { z } from 'zod';
import type { OutputArray, TensorSpec } from '../dtypes.js';
import { py } from '../python-code.js';
import { PipelineError, requireImage, type SampleStage, type StageContext } from '../stage.js';
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

/** Cutout: a size×size square at a uniform position set to `fill`. In place. */
export class CutoutStage implements SampleStage {
  readonly name = 'cutout';
  readonly inPlace = true;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: CutoutSpec,
  ) {
    const [H, W] = requireImage(this.name, input);
    if (o.size > H || o.size > W) throw new PipelineError('BAD_PIPELINE', `Cutout size ${o.size} exceeds the image ${H}x${W}`);
    this.output = input;
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const k = this.o.size;
    const y0 = ctx.rng.int(H - k + 1);
    const x0 = ctx.rng.int(W - k + 1);
    const s = src as Uint8Array;
    for (let y = y0; y < y0 + k; y++)
      for (let x = x0; x < x0 + k; x++) for (let c = 0; c < C; c++) s[(y * W + x) * C + c] = this.o.fill[c] ?? 0;
  }
}

export const cutout: OpType<CutoutSpec> = {
  op: 'cutout',
  sampleStage: (input, s) => new CutoutStage(input, s),
  ffcvImports: ['Cutout'],
  python: (s) => [`Cutout(crop_size=${s.size}, fill=${py(s.fill)})`],
};

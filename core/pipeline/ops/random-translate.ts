import { z } from 'zod';
import { elementCount, type OutputArray, type TensorSpec } from '../dtypes.js';
import { py } from '../python-code.js';
import { requireImage, type SampleStage, type StageContext } from '../stage.js';
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

/** RandomTranslate: pad by p with `fill`, take a random H×W window (dy, dx in 0..2p). In place. */
export class TranslateStage implements SampleStage {
  readonly name = 'random_translate';
  readonly inPlace = true;
  readonly output: TensorSpec;
  private readonly scratch: Uint8Array;
  constructor(
    readonly input: TensorSpec,
    private readonly o: RandomTranslateSpec,
  ) {
    requireImage(this.name, input);
    this.output = input;
    this.scratch = new Uint8Array(elementCount(input));
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const [H, W, C] = this.input.shape as [number, number, number];
    const p = this.o.padding;
    const dy = ctx.rng.int(2 * p + 1) - p;
    const dx = ctx.rng.int(2 * p + 1) - p;
    const s = src as Uint8Array;
    this.scratch.set(s);
    for (let y = 0; y < H; y++) {
      const sy = y + dy;
      for (let x = 0; x < W; x++) {
        const sx = x + dx;
        const di = (y * W + x) * C;
        const inside = sy >= 0 && sy < H && sx >= 0 && sx < W;
        for (let c = 0; c < C; c++) s[di + c] = inside ? this.scratch[(sy * W + sx) * C + c]! : (this.o.fill[c] ?? 0);
      }
    }
  }
}

export const randomTranslate: OpType<RandomTranslateSpec> = {
  op: 'random_translate',
  sampleStage: (input, s) => new TranslateStage(input, s),
  ffcvImports: ['RandomTranslate'],
  python: (s) => [`RandomTranslate(padding=${s.padding}, fill=${py(s.fill)})`],
};

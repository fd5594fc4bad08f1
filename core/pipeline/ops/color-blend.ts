import type { OutputArray, TensorSpec } from '../dtypes.js';
import { requireImage, type SampleStage, type StageContext } from '../stage.js';

/**
 * What RandomContrast and RandomSaturation share (FFCV's blend): with probability p, blend
 * each pixel with a grey target at factor r ~ U(max(0, 1−m), 1+m), truncating. Both numbers
 * are drawn either way, in FFCV's order. Each op's file gives the blend itself. In place.
 */
export abstract class BlendStage<S extends { op: string; p: number; magnitude: number }> implements SampleStage {
  readonly name: string;
  readonly inPlace = true;
  readonly output: TensorSpec;
  constructor(
    readonly input: TensorSpec,
    private readonly o: S,
  ) {
    requireImage(o.op, input);
    this.name = o.op;
    this.output = input;
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    const apply = ctx.rng.next() < this.o.p;
    const r = ctx.rng.uniform(Math.max(0, 1 - this.o.magnitude), 1 + this.o.magnitude);
    if (apply) this.blend(src as Uint8Array, r);
  }
  /** Blends the packed RGB pixels `s` at factor r. */
  protected abstract blend(s: Uint8Array, r: number): void;
}

/** The grey value (ITU-R 601 luma, truncated) of the RGB pixel starting at s[i]. */
export const grey = (s: Uint8Array, i: number): number => Math.trunc(0.2989 * s[i]! + 0.587 * s[i + 1]! + 0.114 * s[i + 2]!);

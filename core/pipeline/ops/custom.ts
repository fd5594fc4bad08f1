import type { NumericArray, OutputArray, TensorSpec } from '../dtypes.js';
import { PipelineError, type SampleStage, type StageContext } from '../stage.js';
import type { OpType } from './op-type.js';

/** The per-sample function of a user-defined operation. It runs in worker threads, so it must be self-contained (no closures). */
export type CustomSampleFn = (
  src: ArrayLike<number> & { [i: number]: number },
  dst: { [i: number]: number; length: number },
  ctx: { shape: readonly number[]; sampleId: number; epoch: number; random: () => number },
) => void;

/** A user function travels as source text (pipelines are plain data that workers rebuild). Not part of the app's config. */
export interface CustomSpec {
  op: 'custom';
  name: string;
  source: string;
  output: TensorSpec | null;
}

/** A user-defined per-sample operation over typed arrays; `output` declares its result (default: same as input). */
export function Custom(name: string, fn: CustomSampleFn, output: TensorSpec | null = null): CustomSpec {
  return { op: 'custom', name, source: fn.toString(), output };
}

/** A user function over typed arrays, rebuilt from its source text in each worker. */
export class CustomStage implements SampleStage {
  readonly inPlace = false;
  readonly output: TensorSpec;
  readonly name: string;
  private readonly fn: CustomSampleFn;
  constructor(
    readonly input: TensorSpec,
    o: CustomSpec,
  ) {
    this.name = `custom:${o.name}`;
    this.output = o.output ?? input;
    try {
      this.fn = new Function(`return (${o.source});`)() as CustomSampleFn;
    } catch (e) {
      throw new PipelineError(
        'BAD_PIPELINE',
        `custom op "${o.name}": its function does not compile on its own (${(e as Error).message}); it must be self-contained`,
      );
    }
    if (typeof this.fn !== 'function') throw new PipelineError('BAD_PIPELINE', `custom op "${o.name}" is not a function`);
  }
  run(src: OutputArray, dst: OutputArray, ctx: StageContext): void {
    this.fn(src as NumericArray, dst as NumericArray, {
      shape: this.input.shape,
      sampleId: ctx.sampleId,
      epoch: ctx.epoch,
      random: ctx.rng.next,
    });
  }
}

export const custom: OpType<CustomSpec> = {
  op: 'custom',
  sampleStage: (input, s) => new CustomStage(input, s),
  ffcvImports: [],
  python: (s, note) => {
    note(`custom op "${s.name}" has no FFCV equivalent; left out (write it as an FFCV Operation)`);
    return [];
  },
};

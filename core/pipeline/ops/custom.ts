import type { TensorSpec } from '../dtypes.js';
import { CustomStage } from '../sample-ops.js';
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

export const custom: OpType<CustomSpec> = {
  op: 'custom',
  sampleStage: (input, s) => new CustomStage(input, s),
  ffcvImports: [],
  python: (s, note) => {
    note(`custom op "${s.name}" has no FFCV equivalent; left out (write it as an FFCV Operation)`);
    return [];
  },
};

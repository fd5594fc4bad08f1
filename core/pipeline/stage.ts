import { BetonError } from '../format/errors.js';
import type { OutputArray, TensorSpec } from './dtypes.js';
import type { Rng } from './rng.js';

export interface StageContext {
  sampleId: number;
  epoch: number;
  /** This stage's own random stream for this sample. */
  rng: Rng;
}

/**
 * One per-sample step after decoding. Stages declare their output up front, so the
 * loader sizes every buffer once. An in-place stage rewrites `src` and ignores `dst`.
 */
export interface SampleStage {
  readonly name: string;
  readonly input: TensorSpec;
  readonly output: TensorSpec;
  readonly inPlace: boolean;
  run(src: OutputArray, dst: OutputArray, ctx: StageContext): void;
}

export interface BatchContext {
  seed: number;
  epoch: number;
  batchIndex: number;
}

/**
 * An op over a whole batch (mixing samples), run once the batch is decoded. Image and
 * label mixup draw λ from the same (seed, epoch, batch) stream, so they agree when
 * configured alike, as in FFCV.
 */
export interface BatchStage {
  readonly name: string;
  readonly output: TensorSpec;
  run(src: OutputArray, dst: OutputArray, n: number, ctx: BatchContext): void;
}

export class PipelineError extends BetonError<'BAD_PIPELINE' | 'UNSUPPORTED_INPUT'> {
  override readonly name: string = 'PipelineError';
  constructor(code: 'BAD_PIPELINE' | 'UNSUPPORTED_INPUT', message: string) {
    super(code, message);
  }
}

export function requireImage(op: string, s: TensorSpec): [number, number, number] {
  if (s.dtype !== 'uint8' || s.shape.length !== 3) {
    throw new PipelineError(
      'UNSUPPORTED_INPUT',
      `${op} works on uint8 images (H, W, C) before NormalizeImage/ToCHW; it got ${s.dtype} [${s.shape.join(', ')}]. Move it earlier in the pipeline`,
    );
  }
  return [s.shape[0]!, s.shape[1]!, s.shape[2]!];
}

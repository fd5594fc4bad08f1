import type { TensorSpec } from './dtypes.js';
import { FusedPixelStage, isPixelOp, type PixelMapKernel, type PixelOp } from './pixel-kernel.js';
import { opType, type OpSpec } from './ops/index.js';
import { PipelineError, type BatchStage, type SampleStage } from './stage.js';

export interface StagePlan {
  stages: SampleStage[];
  /** What workers write into the batch slot, per sample. */
  sampleOutput: TensorSpec;
  batchStages: BatchStage[];
  /** What the consumer gets, per sample. */
  output: TensorSpec;
}

const isImage = (s: TensorSpec): boolean => s.dtype === 'uint8' && s.shape.length === 3;

/**
 * Turns the ops after a decoder into stages, each declaring its output. Runs of per-pixel
 * ops on uint8 images become one fused pass (run by `pixelKernel` when given: the loader
 * passes the native one); mixing ops run per batch and must come last.
 */
export function planStages(decoded: TensorSpec, ops: readonly OpSpec[], pixelKernel?: PixelMapKernel): StagePlan {
  const stages: SampleStage[] = [];
  const batchStages: BatchStage[] = [];
  let spec = decoded;
  let i = 0;
  while (i < ops.length) {
    const o = ops[i]!;
    const type = opType(o);
    if (batchStages.length > 0 && !type.batchStage) {
      throw new PipelineError('BAD_PIPELINE', `${o.op} comes after a mixup op; per-sample ops must come before ImageMixup/LabelMixup`);
    }
    if (isPixelOp(o) && isImage(spec)) {
      const run: PixelOp[] = [];
      while (i < ops.length && isPixelOp(ops[i]!)) run.push(ops[i++] as PixelOp);
      const st = new FusedPixelStage(spec, run, pixelKernel);
      stages.push(st);
      spec = st.output;
      continue;
    }
    if (type.batchStage) {
      batchStages.push(type.batchStage(batchStages.at(-1)?.output ?? spec, o));
      i++;
      continue;
    }
    if (!type.sampleStage) {
      throw new PipelineError(
        'UNSUPPORTED_INPUT',
        `${o.op} works on uint8 images (H, W, C); it got ${spec.dtype} [${spec.shape.join(', ')}]`,
      );
    }
    const st: SampleStage = type.sampleStage(spec, o);
    stages.push(st);
    spec = st.output;
    i++;
  }
  return { stages, sampleOutput: spec, batchStages, output: batchStages.at(-1)?.output ?? spec };
}

import type { TensorSpec } from '../dtypes.js';
import type { BatchStage, SampleStage } from '../stage.js';

/**
 * Everything one transform means, in one place: how it validates (its config schema lives
 * beside it in the op's file), how it runs, and how it is written as FFCV Python. The
 * planner, the contract and the exporter ask the registry (ops/index.ts) instead of
 * switching on op names.
 */
export interface OpType<S extends { op: string }> {
  readonly op: S['op'];
  /**
   * Joins the fused per-pixel pass when it follows a uint8 (H, W, C) image. Its value map
   * or coordinate change is part of pixel-kernel.ts (and the addon's mapPixels): a new
   * fusable op extends those; most new ops are per-sample stages instead.
   */
  readonly fusable?: boolean;
  /** Runs per sample when not fused. Without it (and not fusable) the op is a batch op. */
  sampleStage?(input: TensorSpec, spec: S): SampleStage;
  /** Runs once per batch, after every per-sample stage (mixing samples). */
  batchStage?(input: TensorSpec, spec: S): BatchStage;
  /** Names this op's Python uses from ffcv.transforms. */
  readonly ffcvImports: readonly string[];
  /** The op as FFCV pipeline steps; `note` says what FFCV cannot express (written as a comment). */
  python(spec: S, note: (text: string) => void): string[];
}

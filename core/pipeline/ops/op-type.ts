import type { ElementType, TensorSpec } from '../dtypes.js';
import type { Rng } from '../rng.js';
import type { BatchStage, SampleStage } from '../stage.js';

/**
 * One sample's state in the fused pass as its ops see it, in op order: the value table
 * (`channels` × 256 entries, holding values of `dtype`, the dtype before this op) and
 * whether the image is mirrored.
 */
export interface PixelPass {
  readonly lut: Float64Array;
  readonly channels: number;
  readonly dtype: ElementType;
  flip: boolean;
}

/**
 * An op's part in the fused per-pixel pass over uint8 (H, W, C) images (pixel-kernel.ts):
 * a value map of the table, a mirror, or the output layout. The pass builds the table per
 * sample here in JS and the addon's mapPixels only applies it (with the mirror and the
 * layout), so a new value-map op needs nothing beyond its own file.
 */
export interface PixelPart<S> {
  /** Checks the op at its place in the pass; returns the dtype of the table after it. */
  check(spec: S, before: ElementType, channels: number): ElementType;
  /** Leaves values alone (mirror, layout): a pass of only these builds no table. */
  readonly layoutOnly?: boolean;
  /** Writes the output as (C, H, W). */
  readonly chw?: boolean;
  /** This sample's part: draws its randomness, then maps `pass.lut` in place or mirrors. */
  apply(spec: S, pass: PixelPass, rng: Rng): void;
}

/**
 * Everything one transform means, in one place: how it validates (its config schema lives
 * beside it in the op's file), how it runs, and how it is written as FFCV Python. The
 * planner, the contract and the exporter ask the registry (ops/index.ts) instead of
 * switching on op names.
 */
export interface OpType<S extends { op: string }> {
  readonly op: S['op'];
  /** Joins the fused per-pixel pass when it follows a uint8 (H, W, C) image; most ops are per-sample stages instead. */
  readonly pixel?: PixelPart<S>;
  /** Runs per sample when not fused. Without it (and without `pixel`) the op is a batch op. */
  sampleStage?(input: TensorSpec, spec: S): SampleStage;
  /** Runs once per batch, after every per-sample stage (mixing samples). */
  batchStage?(input: TensorSpec, spec: S): BatchStage;
  /** Names this op's Python uses from ffcv.transforms. */
  readonly ffcvImports: readonly string[];
  /** The op as FFCV pipeline steps; `note` says what FFCV cannot express (written as a comment). */
  python(spec: S, note: (text: string) => void): string[];
}

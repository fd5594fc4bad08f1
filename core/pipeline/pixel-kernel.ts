import { float16Bits } from '../format/float16.js';
import { ELEMENT_BYTES, viewOf, type ElementType, type NumericArray, type OutputArray, type TensorSpec } from './dtypes.js';
import { opType, type OpSpec } from './ops/index.js';
import type { PixelPart, PixelPass } from './ops/op-type.js';
import { PipelineError, requireImage, type SampleStage, type StageContext } from './stage.js';

/** An op a fused pixel pass can absorb (its op type has a `pixel` part: a mirror, a per-channel value map, a layout, a cast). */
export type PixelOp = OpSpec;

/** Shape and options of one fused pass (the arguments of the native mapPixels). */
export interface PixelMapOptions {
  height: number;
  width: number;
  channels: number;
  /** Bytes per output element (1, 2, 4 or 8); 1 without a table. */
  elemBytes: number;
  flip: boolean;
  chw: boolean;
}

/**
 * A compiled fused pass over packed HWC uint8 pixels: `lut` (channels × 256 entries already
 * in the output dtype, as bytes; null = identity, uint8 out) maps values, then a mirror and
 * an HWC/CHW write into `dst` (the output's bytes). The loader injects the addon's C++
 * kernel (core/native mapPixels); this layer stays free of I/O and falls back to JS.
 */
export type PixelMapKernel = (src: Uint8Array, dst: Uint8Array, lut: Uint8Array | null, o: PixelMapOptions) => void;

/** Ops whose type has a part in the fused pass (ops/<op>.ts `pixel`). */
export const isPixelOp = (o: OpSpec): o is PixelOp => opType(o).pixel !== undefined;

function pixelPart(o: PixelOp): PixelPart<PixelOp> {
  const part = opType(o).pixel;
  if (!part) throw new PipelineError('BAD_PIPELINE', `${o.op} cannot join a fused pixel pass (it is not a per-pixel op)`);
  return part;
}

/**
 * Consecutive per-pixel ops fused into one pass ("compiled"): because every value map
 * takes a uint8 input, the whole chain folds into a 256-entry lookup table per channel,
 * built per sample (random factors differ per sample); the flip is a coordinate change
 * and ToCHW an output index. The pass reads each input pixel once and writes each output
 * value once, whatever the number of ops. The pass itself runs in the injected kernel (the
 * loader passes the addon's C++ one: in JS it took about a third of a worker's time per
 * image) or in JS; both produce identical bytes (the table is built here, in the output dtype).
 */
export class FusedPixelStage implements SampleStage {
  readonly name: string;
  readonly output: TensorSpec;
  readonly inPlace = false;
  private readonly H: number;
  private readonly W: number;
  private readonly C: number;
  private readonly chw: boolean;
  private readonly lut: Float64Array;
  /** The table in the output dtype, and its bytes (what the native kernel reads). */
  private readonly lutOut: NumericArray;
  private readonly lutBytes: Uint8Array;
  /** Only flips and ToCHW: the values pass through unchanged. */
  private readonly layoutOnly: boolean;
  private readonly parts: readonly PixelPart<PixelOp>[];
  /** The table's dtype before each op. */
  private readonly dtypes: readonly ElementType[];
  /** One sample's state as the ops see it (reused: run is per sample, on the hot path). */
  private readonly pass: { -readonly [K in keyof PixelPass]: PixelPass[K] };

  constructor(
    readonly input: TensorSpec,
    private readonly ops: readonly PixelOp[],
    private readonly kernel?: PixelMapKernel,
  ) {
    [this.H, this.W, this.C] = requireImage(ops.map((o) => o.op).join('+'), input);
    this.name = `fused(${ops.map((o) => o.op).join('+')})`;
    this.parts = ops.map(pixelPart);
    let dtype: ElementType = 'uint8';
    const dtypes: ElementType[] = [];
    ops.forEach((o, i) => {
      dtypes.push(dtype);
      dtype = this.parts[i]!.check(o, dtype, this.C);
    });
    this.dtypes = dtypes;
    this.chw = this.parts.some((p) => p.chw === true);
    this.output = { shape: this.chw ? [this.C, this.H, this.W] : [this.H, this.W, this.C], dtype };
    this.lut = new Float64Array(this.C * 256);
    this.pass = { lut: this.lut, channels: this.C, dtype: 'uint8', flip: false };
    this.layoutOnly = this.parts.every((p) => p.layoutOnly === true);
    const bytes = new ArrayBuffer(this.C * 256 * ELEMENT_BYTES[dtype]);
    this.lutOut = viewOf(dtype, bytes, 0, this.C * 256) as NumericArray;
    this.lutBytes = new Uint8Array(bytes);
  }

  run(src: OutputArray, dst: OutputArray, ctx: StageContext): void {
    // Flip and ToCHW only (the usual training pipeline): no table to build or check.
    const { flip, identity } = this.layoutOnly ? { flip: this.applyParts(ctx), identity: true } : this.buildTable(ctx);
    const s = src as Uint8Array;
    const d = dst as NumericArray;
    if (this.kernel) {
      const { H, W, C, chw } = this;
      if (!identity) this.lutOut.set(this.lut);
      const out = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      this.kernel(s, out, identity ? null : this.lutBytes, { height: H, width: W, channels: C, elemBytes: d.BYTES_PER_ELEMENT, flip, chw });
    } else if (identity) this.copyPixels(s, d as Uint8Array, flip);
    else this.mapPixels(s, d, flip);
  }

  /**
   * Runs every op's part in op order on this sample (each draws its randomness, then maps
   * the table or mirrors); returns whether the image ends up mirrored.
   */
  private applyParts(ctx: StageContext): boolean {
    const { pass, ops, parts, dtypes } = this;
    pass.flip = false;
    for (let i = 0; i < ops.length; i++) {
      pass.dtype = dtypes[i]!;
      parts[i]!.apply(ops[i]!, pass, ctx.rng);
    }
    return pass.flip;
  }

  /**
   * Builds this sample's table (values in the output dtype, per channel) through the chain
   * of value maps (each op's `pixel.apply`, ops/), drawing each op's randomness in op order.
   * Every op's result is rounded to that op's dtype before the next op reads it, as FFCV's
   * separate buffers do: NormalizeImage's table is float64 cast by numpy (float16 rounded
   * once from float64), Convert is torch's cast (torchCast). `identity`: uint8 values come
   * through unchanged (e.g. brightness drawn but not applied).
   */
  private buildTable(ctx: StageContext): { flip: boolean; identity: boolean } {
    const { C, lut } = this;
    for (let c = 0; c < C; c++) for (let v = 0; v < 256; v++) lut[c * 256 + v] = v;
    const flip = this.applyParts(ctx);
    const dtype = this.output.dtype;
    // float16 values are exact halves by now: encoding them rounds nothing.
    if (dtype === 'float16') for (let i = 0; i < lut.length; i++) lut[i] = float16Bits(lut[i]!);
    let identity = dtype === 'uint8';
    for (let i = 0; identity && i < lut.length; i++) identity = lut[i] === (i & 255);
    return { flip, identity };
  }

  /** Flip/ToCHW without a value map (the common augmentation pipeline): no table lookups. */
  private copyPixels(s: Uint8Array, d: Uint8Array, flip: boolean): void {
    const { H, W, C } = this;
    if (!this.chw) {
      if (!flip) return void d.set(s);
      for (let y = 0; y < H; y++) {
        const row = y * W * C;
        for (let x = 0; x < W; x++) {
          const si = row + (W - 1 - x) * C;
          const di = row + x * C;
          for (let c = 0; c < C; c++) d[di + c] = s[si + c]!;
        }
      }
      return;
    }
    const plane = H * W;
    if (C === 3) {
      const g = plane;
      const b = 2 * plane;
      for (let y = 0; y < H; y++) {
        const row = y * W;
        for (let x = 0; x < W; x++) {
          const si = (row + (flip ? W - 1 - x : x)) * 3;
          const di = row + x;
          d[di] = s[si]!;
          d[g + di] = s[si + 1]!;
          d[b + di] = s[si + 2]!;
        }
      }
      return;
    }
    for (let y = 0; y < H; y++) {
      const row = y * W;
      for (let x = 0; x < W; x++) {
        const si = (row + (flip ? W - 1 - x : x)) * C;
        for (let c = 0; c < C; c++) d[c * plane + row + x] = s[si + c]!;
      }
    }
  }

  private mapPixels(s: Uint8Array, d: NumericArray, flip: boolean): void {
    const { H, W, C, lut } = this;
    const plane = H * W;
    for (let y = 0; y < H; y++) {
      const row = y * W;
      for (let x = 0; x < W; x++) {
        const si = (row + (flip ? W - 1 - x : x)) * C;
        if (this.chw) {
          const di = row + x;
          for (let c = 0; c < C; c++) d[c * plane + di] = lut[c * 256 + s[si + c]!]!;
        } else {
          const di = (row + x) * C;
          for (let c = 0; c < C; c++) d[di + c] = lut[c * 256 + s[si + c]!]!;
        }
      }
    }
  }
}

import type { ElementType, TensorSpec } from './dtypes.js';

/**
 * Pipelines are plain data (serialisable), so worker threads rebuild them: a decoder
 * followed by operations. Factory functions carry FFCV's names so configs read like
 * FFCV code. Per-sample augmentation randomness comes from (seed, epoch, sample id).
 */
/** Temporal sub-sampling of a clip: every k-th stored frame, or a random window of `length` consecutive frames. */
export type ClipTemporal = { mode: 'every'; k: number } | { mode: 'random_window'; length: number };

/**
 * Clip decoders (video_clip fields) write (T, H, W, 3) uint8. `frames`: the stored clip
 * length to plan for (default: the longest clip of the file); T follows from it and
 * `temporal`. `flip`: probability of mirroring the whole clip. One draw per clip for the
 * window, the crop and the flip, so every frame of a clip gets the same ones.
 */
export type ClipDecoderSpec =
  | { decoder: 'clip_simple'; frames?: number; size?: readonly [number, number]; temporal?: ClipTemporal; flip?: number }
  | {
      decoder: 'clip_random_resized_crop';
      size: readonly [number, number];
      scale: readonly [number, number];
      ratio: readonly [number, number];
      frames?: number;
      temporal?: ClipTemporal;
      flip?: number;
    };

export type DecoderSpec =
  | ClipDecoderSpec
  | { decoder: 'simple_rgb' }
  | { decoder: 'random_resized_crop'; size: readonly [number, number]; scale: readonly [number, number]; ratio: readonly [number, number] }
  | { decoder: 'center_crop'; size: readonly [number, number]; ratio: number }
  | { decoder: 'int' }
  | { decoder: 'float' }
  | { decoder: 'ndarray' }
  | { decoder: 'bytes' };

export type OpSpec =
  | { op: 'random_horizontal_flip'; p: number }
  | { op: 'random_translate'; padding: number; fill: readonly [number, number, number] }
  | { op: 'cutout'; size: number; fill: readonly [number, number, number] }
  | { op: 'random_brightness'; magnitude: number; p: number }
  | { op: 'random_contrast'; magnitude: number; p: number }
  | { op: 'random_saturation'; magnitude: number; p: number }
  | { op: 'normalize'; mean: readonly number[]; std: readonly number[]; dtype: 'float16' | 'float32' | 'float64' }
  | { op: 'to_chw' }
  | { op: 'convert'; dtype: ElementType }
  | { op: 'replace_label'; indices: readonly number[]; label: number }
  | { op: 'image_mixup'; alpha: number; sameLambda: boolean }
  | { op: 'label_mixup'; alpha: number; sameLambda: boolean }
  | { op: 'custom'; name: string; source: string; output: TensorSpec | null };

export type PipelineStep = DecoderSpec | OpSpec;

/** One output of the loader: the field it reads and its steps (a decoder first, or the field's default). */
export interface PipelineSpec {
  source: string;
  steps: PipelineStep[];
}

export const isDecoder = (s: PipelineStep): s is DecoderSpec => 'decoder' in s;

const pair = (s: number | readonly [number, number]): [number, number] => (typeof s === 'number' ? [s, s] : [s[0], s[1]]);

export const SimpleRGBImageDecoder = (): DecoderSpec => ({ decoder: 'simple_rgb' });
export const RandomResizedCropRGBImageDecoder = (size: number | readonly [number, number], scale: readonly [number, number] = [0.08, 1], ratio: readonly [number, number] = [3 / 4, 4 / 3]): DecoderSpec => ({
  decoder: 'random_resized_crop',
  size: pair(size),
  scale,
  ratio,
});
export const DEFAULT_CROP_RATIO = 224 / 256;
export const CenterCropRGBImageDecoder = (size: number | readonly [number, number], ratio = DEFAULT_CROP_RATIO): DecoderSpec => ({ decoder: 'center_crop', size: pair(size), ratio });
export const IntDecoder = (): DecoderSpec => ({ decoder: 'int' });
export const FloatDecoder = (): DecoderSpec => ({ decoder: 'float' });
export const NDArrayDecoder = (): DecoderSpec => ({ decoder: 'ndarray' });
export const BytesDecoder = (): DecoderSpec => ({ decoder: 'bytes' });

export interface ClipDecoderOptions {
  /** Stored frames per clip to plan for (default: the longest clip in the file). */
  frames?: number;
  temporal?: ClipTemporal;
  /** Probability of mirroring the whole clip left-right (default 0). */
  flip?: number;
}
/** Whole clips, (T, H, W, 3); every clip's frames must have one size (`size` [H, W], default: the file's). */
export const ClipSimpleDecoder = (opts: ClipDecoderOptions & { size?: number | readonly [number, number] } = {}): DecoderSpec => {
  const { size, ...rest } = opts;
  return { decoder: 'clip_simple', ...rest, ...(size !== undefined ? { size: pair(size) } : {}) };
};
/** RandomResizedCrop with one crop per clip (the same for every frame), then (T, size, size, 3). */
export const ClipRandomResizedCropDecoder = (size: number | readonly [number, number], opts: ClipDecoderOptions & { scale?: readonly [number, number]; ratio?: readonly [number, number] } = {}): DecoderSpec => ({
  decoder: 'clip_random_resized_crop',
  ...opts,
  size: pair(size),
  scale: opts.scale ?? [0.08, 1],
  ratio: opts.ratio ?? [3 / 4, 4 / 3],
});
/** Every k-th stored frame of a clip. */
export const EveryKthFrame = (k: number): ClipTemporal => ({ mode: 'every', k });
/** A random window of `length` consecutive frames of a clip (one draw per clip and epoch). */
export const RandomFrameWindow = (length: number): ClipTemporal => ({ mode: 'random_window', length });

export const RandomHorizontalFlip = (p = 0.5): OpSpec => ({ op: 'random_horizontal_flip', p });
export const RandomTranslate = (padding: number, fill: readonly [number, number, number] = [0, 0, 0]): OpSpec => ({ op: 'random_translate', padding, fill });
export const Cutout = (size: number, fill: readonly [number, number, number] = [0, 0, 0]): OpSpec => ({ op: 'cutout', size, fill });
export const RandomBrightness = (magnitude: number, p = 0.5): OpSpec => ({ op: 'random_brightness', magnitude, p });
export const RandomContrast = (magnitude: number, p = 0.5): OpSpec => ({ op: 'random_contrast', magnitude, p });
export const RandomSaturation = (magnitude: number, p = 0.5): OpSpec => ({ op: 'random_saturation', magnitude, p });
export const NormalizeImage = (mean: readonly number[], std: readonly number[], dtype: 'float16' | 'float32' | 'float64' = 'float32'): OpSpec => ({ op: 'normalize', mean, std, dtype });
export const ToCHW = (): OpSpec => ({ op: 'to_chw' });
export const Convert = (dtype: ElementType): OpSpec => ({ op: 'convert', dtype });
export const ReplaceLabel = (indices: readonly number[], label: number): OpSpec => ({ op: 'replace_label', indices, label });
export const ImageMixup = (alpha: number, sameLambda = true): OpSpec => ({ op: 'image_mixup', alpha, sameLambda });
export const LabelMixup = (alpha: number, sameLambda = true): OpSpec => ({ op: 'label_mixup', alpha, sameLambda });

/** The per-sample function of a user-defined operation. It runs in worker threads, so it must be self-contained (no closures). */
export type CustomSampleFn = (src: ArrayLike<number> & { [i: number]: number }, dst: { [i: number]: number; length: number }, ctx: { shape: readonly number[]; sampleId: number; epoch: number; random: () => number }) => void;

/** A user-defined per-sample operation over typed arrays; `output` declares its result (default: same as input). */
export function Custom(name: string, fn: CustomSampleFn, output: TensorSpec | null = null): OpSpec {
  return { op: 'custom', name, source: fn.toString(), output };
}

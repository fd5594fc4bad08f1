import type { OpSpec } from './ops/index.js';

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

export type PipelineStep = DecoderSpec | OpSpec;

/** One output of the loader: the field it reads and its steps (a decoder first, or the field's default). */
export interface PipelineSpec {
  source: string;
  steps: PipelineStep[];
}

export const isDecoder = (s: PipelineStep): s is DecoderSpec => 'decoder' in s;

const pair = (s: number | readonly [number, number]): [number, number] => (typeof s === 'number' ? [s, s] : [s[0], s[1]]);

export const SimpleRGBImageDecoder = (): DecoderSpec => ({ decoder: 'simple_rgb' });
export const RandomResizedCropRGBImageDecoder = (
  size: number | readonly [number, number],
  scale: readonly [number, number] = [0.08, 1],
  ratio: readonly [number, number] = [3 / 4, 4 / 3],
): DecoderSpec => ({
  decoder: 'random_resized_crop',
  size: pair(size),
  scale,
  ratio,
});
export const DEFAULT_CROP_RATIO = 224 / 256;
export const CenterCropRGBImageDecoder = (size: number | readonly [number, number], ratio = DEFAULT_CROP_RATIO): DecoderSpec => ({
  decoder: 'center_crop',
  size: pair(size),
  ratio,
});
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
export const ClipRandomResizedCropDecoder = (
  size: number | readonly [number, number],
  opts: ClipDecoderOptions & { scale?: readonly [number, number]; ratio?: readonly [number, number] } = {},
): DecoderSpec => ({
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

// Transforms live one per file in ops/ (schema, factory, stage, Python); their factories are
// re-exported here so pipelines read like FFCV code from one import.
export type { OpSpec } from './ops/index.js';
export { Convert } from './ops/convert.js';
export { Custom, type CustomSampleFn } from './ops/custom.js';
export { Cutout } from './ops/cutout.js';
export { ImageMixup } from './ops/image-mixup.js';
export { LabelMixup } from './ops/label-mixup.js';
export { NormalizeImage } from './ops/normalize-image.js';
export { RandomBrightness } from './ops/random-brightness.js';
export { RandomContrast } from './ops/random-contrast.js';
export { RandomHorizontalFlip } from './ops/random-horizontal-flip.js';
export { RandomSaturation } from './ops/random-saturation.js';
export { RandomTranslate } from './ops/random-translate.js';
export { ReplaceLabel } from './ops/replace-label.js';
export { ToCHW } from './ops/to-chw.js';

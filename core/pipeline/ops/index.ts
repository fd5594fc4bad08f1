import { convert, type ConvertSpec, schema as convertSchema } from './convert.js';
import { custom, type CustomSpec } from './custom.js';
import { cutout, type CutoutSpec, schema as cutoutSchema } from './cutout.js';
import { imageMixup, type ImageMixupSpec, schema as imageMixupSchema } from './image-mixup.js';
import { labelMixup, type LabelMixupSpec, schema as labelMixupSchema } from './label-mixup.js';
import { normalizeImage, type NormalizeImageSpec, schema as normalizeSchema } from './normalize-image.js';
import type { OpType } from './op-type.js';
import { randomBrightness, type RandomBrightnessSpec, schema as brightnessSchema } from './random-brightness.js';
import { randomContrast, type RandomContrastSpec, schema as contrastSchema } from './random-contrast.js';
import { randomHorizontalFlip, type RandomHorizontalFlipSpec, schema as flipSchema } from './random-horizontal-flip.js';
import { randomSaturation, type RandomSaturationSpec, schema as saturationSchema } from './random-saturation.js';
import { randomTranslate, type RandomTranslateSpec, schema as translateSchema } from './random-translate.js';
import { replaceLabel, type ReplaceLabelSpec, schema as replaceLabelSchema } from './replace-label.js';
import { toCHW, type ToCHWSpec, schema as toCHWSchema } from './to-chw.js';

/**
 * The registry of transforms. Adding one: a file in this folder (schema, factory, stage,
 * Python) and its line in each list below — nothing else in core switches on op names.
 */
export type OpSpec =
  | RandomHorizontalFlipSpec
  | RandomTranslateSpec
  | CutoutSpec
  | RandomBrightnessSpec
  | RandomContrastSpec
  | RandomSaturationSpec
  | NormalizeImageSpec
  | ToCHWSpec
  | ConvertSpec
  | ReplaceLabelSpec
  | ImageMixupSpec
  | LabelMixupSpec
  | CustomSpec;

/** The config schemas of the ops the app and the contract accept (custom ops are code, not config). */
export const OP_SCHEMAS = [
  flipSchema,
  translateSchema,
  cutoutSchema,
  brightnessSchema,
  contrastSchema,
  saturationSchema,
  normalizeSchema,
  toCHWSchema,
  convertSchema,
  replaceLabelSchema,
  imageMixupSchema,
  labelMixupSchema,
] as const;

const OPS: { [K in OpSpec['op']]: OpType<Extract<OpSpec, { op: K }>> } = {
  random_horizontal_flip: randomHorizontalFlip,
  random_translate: randomTranslate,
  cutout,
  random_brightness: randomBrightness,
  random_contrast: randomContrast,
  random_saturation: randomSaturation,
  normalize: normalizeImage,
  to_chw: toCHW,
  convert,
  replace_label: replaceLabel,
  image_mixup: imageMixup,
  label_mixup: labelMixup,
  custom,
};

/** The op type of a step. */
export function opType<S extends OpSpec>(spec: S): OpType<S> {
  return OPS[spec.op as S['op']] as unknown as OpType<S>;
}

/** Every op's ffcv.transforms names (the exporter's import line). */
export const FFCV_TRANSFORM_IMPORTS: readonly string[] = [...new Set(Object.values(OPS).flatMap((o) => o.ffcvImports))];

export type { OpType } from './op-type.js';

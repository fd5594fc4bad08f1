import type { z } from 'zod';
import { convert, schema as convertSchema } from './convert.js';
import { custom, type CustomSpec } from './custom.js';
import { cutout, schema as cutoutSchema } from './cutout.js';
import { imageMixup, schema as imageMixupSchema } from './image-mixup.js';
import { labelMixup, schema as labelMixupSchema } from './label-mixup.js';
import { normalizeImage, schema as normalizeSchema } from './normalize-image.js';
import type { OpType } from './op-type.js';
import { randomBrightness, schema as brightnessSchema } from './random-brightness.js';
import { randomContrast, schema as contrastSchema } from './random-contrast.js';
import { randomHorizontalFlip, schema as flipSchema } from './random-horizontal-flip.js';
import { randomSaturation, schema as saturationSchema } from './random-saturation.js';
import { randomTranslate, schema as translateSchema } from './random-translate.js';
import { replaceLabel, schema as replaceLabelSchema } from './replace-label.js';
import { toCHW, schema as toCHWSchema } from './to-chw.js';

/**
 * The registry of transforms. Adding one: a file in this folder (config schema, factory,
 * stage, Python) and its entry here — its schema in OP_SCHEMAS (custom ops are code, not
 * config) and its op type in OPS; the compiler holds the two lists to each other. Nothing
 * else in core switches on op names: a per-pixel op gives its part of the fused pass
 * (`pixel`: a value map of the table, a mirror or the layout) in its own file too.
 */

/** The config schemas of the ops the app and the contract accept. */
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

/** Every transform step a pipeline may hold: the configurable ones and custom code. */
export type OpSpec = z.output<(typeof OP_SCHEMAS)[number]> | CustomSpec;

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

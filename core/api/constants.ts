/**
 * The contract's constants: the values that the zod schemas (build-config.ts,
 * loader-config.ts), the CLI and the renderer all need. The renderer may import *values*
 * from this module only (eslint.config.js; everything else of core it imports as types), so
 * the app's forms offer what the host accepts without repeating lists and bounds by hand.
 * Plain data, no zod: it is bundled into the page.
 */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_WRITER_PAGE_SIZE } from '../format/constants.js';
import { ELEMENT_TYPES } from '../pipeline/dtypes.js';
import { ORDER_NAMES } from './order-names.js';

export { ORDER_NAMES };
export type { OrderName } from './order-names.js';

/**
 * The built-in field types' names, spelled once: build configs, the .beton's field specs,
 * the app's forms. core/fields' identities (`RGB_IMAGE_IDENTITY` …) take their `type` from
 * here, and core code above fields compares with those identities; this module holds the
 * names because the renderer may import values from it only.
 */
export const FIELD_TYPE = {
  rgbImage: 'rgb_image',
  int: 'int',
  float: 'float',
  bytes: 'bytes',
  json: 'json',
  ndarray: 'ndarray',
  torchTensor: 'torch_tensor',
  videoClip: 'video_clip',
} as const;

/** The field types a build config names, in the order the app offers them (video_clip only for video sources). */
export const FIELD_TYPES = [
  FIELD_TYPE.rgbImage,
  FIELD_TYPE.int,
  FIELD_TYPE.float,
  FIELD_TYPE.bytes,
  FIELD_TYPE.json,
  FIELD_TYPE.ndarray,
  FIELD_TYPE.torchTensor,
  FIELD_TYPE.videoClip,
] as const;
export type FieldTypeName = (typeof FIELD_TYPES)[number];
/** The NDArray-like types: a dtype and a shape. */
export const ARRAY_FIELD_TYPES = ['ndarray', 'torch_tensor'] as const;

/** How an RGB image field stores pixels (FFCV's RGBImageField write_mode). */
export const IMAGE_WRITE_MODES = ['raw', 'jpg', 'smart', 'proportion'] as const;
export type ImageWriteMode = (typeof IMAGE_WRITE_MODES)[number];
/** How a video clip field stores frames. */
export const CLIP_WRITE_MODES = ['jpg', 'raw'] as const;

/**
 * The dtype names the app offers for arrays, numpy's (build configs also take any numpy
 * typestr, "<f4"): the loader's element types, the same names.
 */
export const ARRAY_DTYPES = ELEMENT_TYPES;

/** JPEG quality (RGB images, video frames). */
export const JPEG_QUALITY = { min: 1, max: 100, default: 90 } as const;
/** The chance a `proportion` image is stored as JPEG. */
export const COMPRESS_PROBABILITY = { min: 0, max: 1, default: 0.5 } as const;
/** Page sizes: a power of two; FFCV's writer refuses pages under 2 MiB. */
export const PAGE_SIZE = { default: DEFAULT_PAGE_SIZE, minWriter: MIN_WRITER_PAGE_SIZE, max: MAX_PAGE_SIZE } as const;
/** What a build does with a sample it cannot encode. */
export const ON_ERROR = ['fail', 'skip'] as const;
/** Table formats a `table` source reads. */
export const TABLE_FORMATS = ['csv', 'tsv', 'parquet', 'jsonl', 'npy', 'npz'] as const;

/**
 * The loader's defaults, for both of its surfaces, stated together because the order differs
 * between them on purpose:
 * - A `LoaderConfig` (the app, `beton`, build and export configs) describes a *training*
 *   loader, so it shuffles: `order` 'random', as training asks for (FFCV's training examples
 *   pass OrderOption.RANDOM) and what the profiler's sweep measures unless told otherwise
 *   (PROFILE_DEFAULTS.orders). Its `seed` is 0: a config gives the same batches every run.
 * - The `Loader` class (the library, FFCV's API: `Loader.open(path, options)`) keeps FFCV's own
 *   defaults, so a script ported from FFCV gets FFCV's batches: `libraryOrder` 'sequential'
 *   (FFCV's Loader without `order`), and without a seed 0 when distributed (every rank must
 *   draw the same permutation) or a random one otherwise.
 * `dropLast`, `batchesAhead` and `osCache` are the same for both (FFCV's drop_last=True,
 * batches_ahead=3, os_cache=True).
 */
export const LOADER_DEFAULTS = {
  order: 'random',
  libraryOrder: 'sequential',
  seed: 0,
  dropLast: true,
  batchesAhead: 3,
  osCache: true,
} as const satisfies {
  order: (typeof ORDER_NAMES)[number];
  libraryOrder: (typeof ORDER_NAMES)[number];
  seed: number;
  dropLast: boolean;
  batchesAhead: number;
  osCache: boolean;
};

/**
 * Image defaults of a build (`beton build`, the app, build configs), chosen from the build
 * advice's own numbers rather than copied from FFCV's RGBImageField (raw, no cap), whose
 * defaults store 3.7 MB of sample JPEGs as 176 MiB. docs/build-config.md#defaults:
 * - `smart`: JPEG (quality 90: ~7 KiB for the sample's ~65 KiB raw images, about a tenth)
 *   for images larger than 64x64 pixels, raw below, where JPEG saves little and costs a decode;
 * - images capped at 512 pixels on the longer side: above the crops training uses
 *   (160-320), below a camera's 4000x3000 (36 MB raw each). `null` keeps every pixel.
 * The library's RGBImageField class keeps FFCV's defaults (same arguments, same file).
 */
export const DEFAULT_IMAGE_WRITE_MODE = 'smart';
export const DEFAULT_MAX_RESOLUTION = 512;
/** smart mode: JPEG when width*height*3 exceeds this (64x64 RGB); FFCV has none (smart alone stores raw). */
export const DEFAULT_SMART_THRESHOLD = 64 * 64 * 3;

/**
 * Video sources: the frames per clip the app proposes for a folder of videos (the user sees
 * and edits it in the form before building). The CLI proposes nothing: a build without
 * --clip-length is refused (core/app/detect-source.ts).
 */
export const DEFAULT_CLIP_LENGTH = 16;

/**
 * The kinds of profiler run the runs database keeps, with what the app and the CLI call
 * them. A new kind is a row here, its plan schema in core/runs/validate.ts (PLAN_SCHEMAS,
 * which the compiler holds to this list) and the core/app use case that records it; the
 * database takes any kind listed here (migration 006 dropped the SQL list).
 */
export const RUN_KINDS = {
  sweep: { label: 'loader sweep' },
  exec: { label: 'training command' },
} as const;
export type RunKind = keyof typeof RUN_KINDS;
export const RUN_KIND_NAMES = Object.keys(RUN_KINDS) as [RunKind, ...RunKind[]];

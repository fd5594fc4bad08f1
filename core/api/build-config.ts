import { z } from 'zod';
import {
  DEFAULT_IMAGE_WRITE_MODE,
  DEFAULT_MAX_RESOLUTION,
  DEFAULT_SMART_THRESHOLD,
  CLIP_WRITE_MODES,
  COMPRESS_PROBABILITY,
  FIELD_TYPE,
  IMAGE_WRITE_MODES,
  JPEG_QUALITY,
  ON_ERROR,
  PAGE_SIZE,
  TABLE_FORMATS,
} from './constants.js';

/**
 * The build configuration: what `beton build --config`, the app's Build screen and the
 * exporter all speak. Documented in docs/build-config.md. Pure (no I/O).
 */
const positiveInt = z.number().int().positive();

/**
 * Source columns feeding a field (tables and image lists); default: the column named like
 * the field. Several columns make one NDArray in order (e.g. 784 pixel columns → (28, 28));
 * `*` globs expand in column order ("pixel*").
 */
const columns = z.array(z.string().min(1)).min(1).optional();

export const RGBImageFieldConfig = z
  .object({
    name: z.string(),
    type: z.literal(FIELD_TYPE.rgbImage),
    writeMode: z.enum(IMAGE_WRITE_MODES).default(DEFAULT_IMAGE_WRITE_MODE),
    maxResolution: positiveInt.nullable().default(DEFAULT_MAX_RESOLUTION),
    smartThreshold: positiveInt.nullable().default(DEFAULT_SMART_THRESHOLD),
    jpegQuality: z.number().int().min(JPEG_QUALITY.min).max(JPEG_QUALITY.max).default(JPEG_QUALITY.default),
    compressProbability: z.number().min(COMPRESS_PROBABILITY.min).max(COMPRESS_PROBABILITY.max).default(COMPRESS_PROBABILITY.default),
    /** Store source JPEGs unchanged when they qualify (8-bit YCbCr/grey, no resize, no EXIF rotation). */
    passThrough: z.boolean().default(false),
    columns,
  })
  .strict();

const simple = (t: typeof FIELD_TYPE.float | typeof FIELD_TYPE.bytes | typeof FIELD_TYPE.json) =>
  z.object({ name: z.string(), type: z.literal(t), columns }).strict();

/**
 * An integer field. From a string column (category → int) `categories` lists the values in
 * label order: each cell is stored as its value's index, and the list is the mapping the
 * dataset's class names come from. A value not listed is a bad sample.
 */
export const IntFieldConfig = z
  .object({
    name: z.string(),
    type: z.literal(FIELD_TYPE.int),
    categories: z
      .array(z.string())
      .min(1)
      .max(65536)
      .refine((c) => new Set(c).size === c.length, 'categories must be distinct')
      .optional(),
    columns,
  })
  .strict();

export const NDArrayFieldConfig = z
  .object({
    name: z.string(),
    type: z.enum([FIELD_TYPE.ndarray, FIELD_TYPE.torchTensor]),
    dtype: z.string(),
    shape: z.array(positiveInt).min(1).max(32),
    columns,
  })
  .strict();

/** A clip of frames per sample (video sources): a custom field (type 255), see docs/video.md. */
export const VideoClipFieldConfig = z
  .object({
    name: z.string(),
    type: z.literal(FIELD_TYPE.videoClip),
    writeMode: z.enum(CLIP_WRITE_MODES).default('jpg'),
    jpegQuality: z.number().int().min(JPEG_QUALITY.min).max(JPEG_QUALITY.max).default(JPEG_QUALITY.default),
    maxResolution: positiveInt.nullable().default(null),
    /** Frames per clip when every clip has the same number (checked when writing); null = any. */
    frames: positiveInt.max(65535).nullable().default(null),
    columns,
  })
  .strict();

export const FieldConfig = z.discriminatedUnion('type', [
  RGBImageFieldConfig,
  VideoClipFieldConfig,
  IntFieldConfig,
  simple(FIELD_TYPE.float),
  simple(FIELD_TYPE.bytes),
  simple(FIELD_TYPE.json),
  NDArrayFieldConfig,
]);
export type FieldConfig = z.infer<typeof FieldConfig>;

/** How a video source cuts videos into clips. */
const videoClipping = {
  /** Frames per clip (T). */
  clipLength: positiveInt.max(65535),
  /** Frames between the starts of consecutive clips; default clipLength (back to back). */
  stride: positiveInt.optional(),
  /** Resample every video to this frame rate first (ffmpeg's fps filter); null = each video's own. */
  fps: z.number().positive().nullable().default(null),
  /** The ffmpeg executable (default: ffmpeg on PATH); ffprobe is looked up beside it. */
  ffmpeg: z.string().min(1).optional(),
};

export { TABLE_FORMATS };

export const SourceConfig = z.discriminatedUnion('type', [
  z.object({ type: z.literal('image_folder'), path: z.string().min(1) }).strict(),
  /** A CSV/TSV/JSONL listing image paths (relative to the list's folder) plus label/attribute columns. */
  z
    .object({
      type: z.literal('image_list'),
      path: z.string().min(1),
      imageColumn: z.string().min(1),
      format: z.enum(['csv', 'tsv', 'jsonl']).optional(),
    })
    .strict(),
  /**
   * WebDataset tar shards (docs/sources.md): `path` is a brace pattern (`train-{000000..000041}.tar`),
   * a glob, a folder of .tar/.tar.gz shards, one shard, or a list file of shard paths.
   */
  z.object({ type: z.literal('webdataset'), path: z.string().min(1) }).strict(),
  /**
   * Tabular data: columns (or groups of columns) become fields. Streamed, never loaded whole.
   * `path` may name many files (`data/train-*.parquet`, `{a,b}.csv`): read as one table in name order.
   */
  z.object({ type: z.literal('table'), path: z.string().min(1), format: z.enum(TABLE_FORMATS).optional() }).strict(),
  /** Videos in root/<class>/<video> (labels as ImageFolder), decoded with ffmpeg into clips (docs/video.md). */
  z.object({ type: z.literal('video_folder'), path: z.string().min(1), ...videoClipping }).strict(),
  /** A CSV/JSONL list of videos: path,label[,start,end] (seconds); paths relative to the list's folder. */
  z
    .object({ type: z.literal('video_list'), path: z.string().min(1), format: z.enum(['csv', 'jsonl']).optional(), ...videoClipping })
    .strict(),
]);
export type SourceConfig = z.infer<typeof SourceConfig>;

const isPow2 = (n: number): boolean => Number.isInteger(Math.log2(n));

export const BuildConfig = z
  .object({
    source: SourceConfig,
    output: z.string().min(1),
    /** Field list in file order; omitted = the source's default schema. */
    fields: z.array(FieldConfig).min(1).optional(),
    /** Options applied to the source's default image field when `fields` is omitted. */
    image: RGBImageFieldConfig.omit({ name: true, type: true }).partial().optional(),
    pageSize: positiveInt.refine(isPow2, 'must be a power of two').default(PAGE_SIZE.default),
    numWorkers: z.number().int().min(0).optional(),
    chunkSize: positiveInt.default(100),
    seed: z.number().int().default(0),
    /** 'fail' stops at the first bad sample (no output); 'skip' leaves it out and reports it. */
    onError: z.enum(ON_ERROR).default('fail'),
    /** A contiguous slice [start, end) of the source's samples (Python slice bounds). */
    range: z.tuple([z.number().int(), z.number().int().nullable()]).optional(),
    /** Shard k of N: a contiguous slice, so shards built in parallel concatenate in order. */
    shard: z
      .object({ index: z.number().int().min(0), count: positiveInt })
      .strict()
      .refine((s) => s.index < s.count, 'index must be < count')
      .optional(),
  })
  .strict();
export type BuildConfig = z.infer<typeof BuildConfig>;
export type BuildConfigInput = z.input<typeof BuildConfig>;

/** Validates unknown JSON; messages point at the bad key (e.g. `fields[0].writeMode`). */
export function parseBuildConfig(input: unknown): { ok: true; value: BuildConfig } | { ok: false; errors: string[] } {
  const r = BuildConfig.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    errors: r.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`),
  };
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

import { z } from 'zod';
import { OP_SCHEMAS } from '../pipeline/ops/index.js';
import { ORDER_NAMES } from './order-names.js';
import { LOADER_DEFAULTS } from './constants.js';
import { ownRecord } from './own-record.js';

/**
 * The loader configuration: what the profiler sweeps, the app edits and the exporter
 * turns into Python FFCV code. Pipelines are lists of steps in the same plain-data form
 * the loader takes (core/pipeline/spec.ts). Pure (no I/O).
 */
const pair = z.tuple([z.number().positive(), z.number().positive()]);

/** A clip decoder's temporal sub-sampling (core/pipeline/spec.ts ClipTemporal). */
const temporal = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('every'), k: z.number().int().min(1) }).strict(),
  z.object({ mode: z.literal('random_window'), length: z.number().int().min(1) }).strict(),
]);
/** Options both clip decoders take (ClipDecoderOptions): the stored length to plan for, temporal sub-sampling, flip probability. */
const clipOptions = {
  frames: z.number().int().min(1).max(65535).optional(),
  temporal: temporal.optional(),
  flip: z.number().min(0).max(1).optional(),
};

export const DecoderConfig = z.discriminatedUnion('decoder', [
  z.object({ decoder: z.literal('simple_rgb') }).strict(),
  z.object({ decoder: z.literal('int') }).strict(),
  z.object({ decoder: z.literal('float') }).strict(),
  z.object({ decoder: z.literal('ndarray') }).strict(),
  z.object({ decoder: z.literal('bytes') }).strict(),
  z
    .object({ decoder: z.literal('random_resized_crop'), size: pair, scale: pair.default([0.08, 1]), ratio: pair.default([3 / 4, 4 / 3]) })
    .strict(),
  z
    .object({
      decoder: z.literal('center_crop'),
      size: pair,
      ratio: z
        .number()
        .positive()
        .max(1)
        .default(224 / 256),
    })
    .strict(),
  // video_clip fields: (T, H, W, 3) clips (core/fields/video-clip-decoders.ts).
  z.object({ decoder: z.literal('clip_simple'), size: pair.optional(), ...clipOptions }).strict(),
  z
    .object({
      decoder: z.literal('clip_random_resized_crop'),
      size: pair,
      scale: pair.default([0.08, 1]),
      ratio: pair.default([3 / 4, 4 / 3]),
      ...clipOptions,
    })
    .strict(),
]);

export type ClipDecoderConfig = Extract<z.infer<typeof DecoderConfig>, { decoder: 'clip_simple' | 'clip_random_resized_crop' }>;

/** Transforms: each op's schema lives with the op (core/pipeline/ops/). */
const ops = z.discriminatedUnion('op', OP_SCHEMAS);

/** A pipeline: an optional decoder first, then ops. */
export const PipelineConfigSchema = z.array(z.union([DecoderConfig, ops]));

export const LoaderConfig = z
  .object({
    file: z.string().min(1),
    batchSize: z.number().int().positive(),
    numWorkers: z.number().int().positive().optional(),
    order: z.enum(ORDER_NAMES).default(LOADER_DEFAULTS.order),
    seed: z.number().int().min(0).default(LOADER_DEFAULTS.seed),
    dropLast: z.boolean().default(LOADER_DEFAULTS.dropLast),
    batchesAhead: z.number().int().positive().default(LOADER_DEFAULTS.batchesAhead),
    osCache: z.boolean().default(LOADER_DEFAULTS.osCache),
    distributed: z
      .object({ rank: z.number().int().min(0), worldSize: z.number().int().positive() })
      .strict()
      .optional(),
    /** Output name → steps, or null to disable a field. Keys are field names: `__proto__` included (own-record.ts). */
    pipelines: ownRecord(PipelineConfigSchema.nullable()).default(() => Object.create(null) as Record<string, never>),
  })
  .strict();
export type LoaderConfig = z.infer<typeof LoaderConfig>;
export type LoaderConfigInput = z.input<typeof LoaderConfig>;

export function parseLoaderConfig(input: unknown): { ok: true; value: LoaderConfig } | { ok: false; errors: string[] } {
  const r = LoaderConfig.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    errors: r.error.issues.map(
      (i) =>
        `${
          i.path
            .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
            .join('')
            .replace(/^\./, '') || '(root)'
        }: ${i.message}`,
    ),
  };
}

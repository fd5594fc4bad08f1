import { z } from 'zod';

/**
 * The build configuration: what `beton build --config`, the app's Build screen and the
 * exporter all speak. Documented in docs/build-config.md. Pure (no I/O).
 */
const positiveInt = z.number().int().positive();

export const RGBImageFieldConfig = z
  .object({
    name: z.string(),
    type: z.literal('rgb_image'),
    writeMode: z.enum(['raw', 'jpg', 'smart', 'proportion']).default('raw'),
    maxResolution: positiveInt.nullable().default(null),
    smartThreshold: positiveInt.nullable().default(null),
    jpegQuality: z.number().int().min(1).max(100).default(90),
    compressProbability: z.number().min(0).max(1).default(0.5),
  })
  .strict();

const simple = (t: 'int' | 'float' | 'bytes' | 'json') => z.object({ name: z.string(), type: z.literal(t) }).strict();

export const NDArrayFieldConfig = z
  .object({
    name: z.string(),
    type: z.enum(['ndarray', 'torch_tensor']),
    dtype: z.string(),
    shape: z.array(positiveInt).min(1).max(32),
  })
  .strict();

export const FieldConfig = z.discriminatedUnion('type', [
  RGBImageFieldConfig,
  simple('int'),
  simple('float'),
  simple('bytes'),
  simple('json'),
  NDArrayFieldConfig,
]);
export type FieldConfig = z.infer<typeof FieldConfig>;

export const SourceConfig = z.discriminatedUnion('type', [
  z.object({ type: z.literal('image_folder'), path: z.string().min(1) }).strict(),
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
    pageSize: positiveInt.refine(isPow2, 'must be a power of two').default(8 * 1024 * 1024),
    numWorkers: z.number().int().min(0).optional(),
    chunkSize: positiveInt.default(100),
    seed: z.number().int().default(0),
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

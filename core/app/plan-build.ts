import { parseBuildConfig, type BuildConfig, type BuildConfigInput, type FieldConfig } from '../api/build-config.js';
import { VIDEO_CLIP_IDENTITY } from '../fields/video-clip-field.js';
import { OptionsError } from '../format/errors.js';
import { detectSourceAndTable } from '../sources/open-source.js';
import type { TableReader } from '../sources/common/table-reader.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import { buildFields } from './build.js';
import { BuildSource } from './build-source.js';

/** A video source's clipping, given apart from a config (CLI flags). */
export interface ClipOptions {
  clipLength?: number;
  stride?: number;
  fps?: number;
  ffmpeg?: string;
}

/** The options a build config's `image` takes, in config names (writeMode, maxResolution, …). */
export type ImageOptions = NonNullable<BuildConfig['image']>;

/**
 * A build as a front end states it: a config (a --config file, the app's form) and the
 * options given beside it (a SOURCE path, flags). planBuild turns it into one validated
 * BuildConfig with the same rules for every front end.
 */
export interface BuildRequest {
  /** A build config as given; may leave out what the fields below give. */
  config?: Record<string, unknown>;
  /** A source path given on its own (absolute): detected (detect-source.ts). */
  sourcePath?: string;
  imageColumn?: string;
  /** With sourcePath, how to read videos; without, applied to the config's video source. */
  clip?: ClipOptions;
  /** The image field's options; for a video source, the clip frames' (writeMode, maxResolution, jpegQuality only). */
  image?: Partial<ImageOptions>;
  output?: string;
  /** Relative paths in the config resolve from here (a --config file's folder); default the working folder. */
  baseDir?: string;
  readGuard?: ReadGuard;
}

/** A build config that does not validate: every problem, one a line. */
export class InvalidBuildConfig extends OptionsError {
  constructor(readonly errors: string[]) {
    super(`invalid build config:\n  ${errors.join('\n  ')}`);
  }
}

const bad = (message: string): never => {
  throw new OptionsError(message);
};
const isVideo = (source: unknown): boolean => /^video_/.test(String((source as { type?: unknown } | undefined)?.type ?? ''));
const CLIP_FRAME_OPTIONS = ['writeMode', 'maxResolution', 'jpegQuality'] as const;

/**
 * A validated build: its config, and the clip-frame options that wait for the detected
 * video_clip field (resolveFields puts them on it).
 */
export interface BuildPlan {
  config: BuildConfig;
  clipFrames: Partial<ImageOptions> | null;
  /** The build's source, opened at most once (resolveFields, guardBuild and runBuild take this one). */
  source: BuildSource;
}

/** The request as one validated config (the fields stay to be detected unless the config lists them: resolveFields). */
export async function planBuild(req: BuildRequest): Promise<BuildPlan> {
  const raw: Record<string, unknown> = { ...(req.config ?? {}) };
  const clip = Object.fromEntries(Object.entries(req.clip ?? {}).filter(([, v]) => v !== undefined)) as ClipOptions;
  let table: TableReader | null = null;
  if (req.sourcePath !== undefined) {
    // detectSource's rules (core/app/detect-source.ts) without its schema: a folder of videos needs clip.clipLength.
    const detected = await detectSourceAndTable(req.sourcePath, {
      ...clip,
      ...(req.imageColumn !== undefined ? { imageColumn: req.imageColumn } : {}),
      ...(req.readGuard ? { readGuard: req.readGuard } : {}),
    });
    raw.source = detected.config;
    table = detected.table;
  } else if (Object.keys(clip).length) {
    if (!isVideo(raw.source)) bad('clip length, stride, fps and ffmpeg apply to a video source (a folder of videos or a video list)');
    raw.source = { ...(raw.source as object), ...clip };
  }
  const image: Record<string, unknown> = Object.fromEntries(Object.entries(req.image ?? {}).filter(([, v]) => v !== undefined));
  if (isVideo(raw.source)) {
    // Videos: the image options apply to the clip frames (the video_clip field), not to an image field.
    const other = Object.keys(image).filter((k) => !(CLIP_FRAME_OPTIONS as readonly string[]).includes(k));
    if (other.length)
      bad(
        `--${other.map((k) => k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())).join(', --')} do not apply to video clips (only --write-mode jpg|raw, --max-resolution, --jpeg-quality)`,
      );
    // A clip is many frames: small chunks keep the frames in flight to the encoders bounded.
    raw.chunkSize ??= 8;
  } else if (Object.keys(image).length) raw.image = { ...((raw.image as object | undefined) ?? {}), ...image };
  if (req.output !== undefined) raw.output = req.output;
  const parsed = parseBuildConfig(raw as BuildConfigInput);
  if (!parsed.ok) throw new InvalidBuildConfig(parsed.errors);
  const video = isVideo(raw.source) && Object.keys(image).length > 0;
  const source = new BuildSource(parsed.value.source, req.baseDir ?? process.cwd(), {
    ...(req.readGuard ? { readGuard: req.readGuard } : {}),
    // The table detection opened (a CSV read through to count its rows) is the source's: not opened again.
    table,
  });
  return { config: parsed.value, clipFrames: video ? (image as Partial<ImageOptions>) : null, source };
}

/**
 * The config with its fields written out: detected from the source (or the config's own),
 * the clip-frame options applied, only `columns` kept. Every shard of a sharded build gets
 * these fields, so no shard can detect another schema; `--schema-only` prints them.
 */
export async function resolveFields(plan: BuildPlan, opts: { columns?: readonly string[] } = {}): Promise<BuildConfig> {
  const { config, clipFrames: frames } = plan;
  const source = await plan.source.open();
  let fields: FieldConfig[] = await buildFields(config, source);
  if (frames) fields = fields.map((f) => (f.type === VIDEO_CLIP_IDENTITY.type ? ({ ...f, ...frames } as FieldConfig) : f));
  if (opts.columns) {
    const keep = opts.columns;
    const missing = keep.filter((c) => !fields.some((f) => f.name === c || f.columns?.includes(c)));
    if (missing.length) bad(`--columns: no field or column named ${missing.join(', ')} (have: ${fields.map((f) => f.name).join(', ')})`);
    fields = fields.filter((f) => keep.includes(f.name) || f.columns?.some((c) => keep.includes(c)));
  }
  const again = parseBuildConfig({ ...config, image: undefined, fields });
  if (!again.ok) throw new InvalidBuildConfig(again.errors);
  return again.value;
}

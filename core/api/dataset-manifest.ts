import { z } from 'zod';
import { ownRecord } from './own-record.js';

/**
 * The sidecar manifest `OUT.beton.manifest.json` (docs/dataset-manifest.md): what a .beton
 * cannot hold without breaking FFCV (class names, the build config and report), kept in a
 * JSON file beside it. FFCV never opens it. Pure: the schema and the path rule only; the
 * writer (core/writer/sidecar-manifest.ts) and the reader (core/reader/sidecar-manifest.ts)
 * do the I/O.
 */

export const MANIFEST_FORMAT = 'beton-studio/dataset-manifest';
export const MANIFEST_VERSION = 1;
export const MANIFEST_SUFFIX = '.manifest.json';

/** `train.beton` → `train.beton.manifest.json` (the whole name kept, so two files never share one). */
export const manifestPathFor = (betonPath: string): string => betonPath + MANIFEST_SUFFIX;

export const DatasetManifest = z.object({
  format: z.literal(MANIFEST_FORMAT),
  version: z.number().int().positive(),
  /** Which .beton this describes: sha256 of its header, field table and allocation table (core/reader/content-hash.ts). */
  beton: z.object({
    file: z.string(),
    contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
    fileSize: z.number().int().nonnegative(),
    numSamples: z.number().int().nonnegative(),
  }),
  /**
   * Names of an int label field's values, in label order (names[k] is label k). Image and
   * video folders: the class folder names. null when the source has none.
   */
  classNames: z.object({ field: z.string(), names: z.array(z.string()), from: z.string() }).nullable(),
  /**
   * Per field, the string → int mapping a table's string column was turned into (filled by
   * the build when a column is mapped; empty otherwise).
   */
  labelMappings: ownRecord(ownRecord(z.number().int())),
  /** The build config as run (validated BuildConfig) and its report; kept as JSON, not re-validated on read. */
  build: z.unknown(),
  report: z.unknown(),
  writtenBy: z.string(),
  createdAt: z.string(),
});
export type DatasetManifest = z.infer<typeof DatasetManifest>;

/** What a reader makes of the manifest beside a .beton (never an error: a dataset without one shows label numbers). */
export type ManifestStatus =
  | { status: 'ok'; path: string; manifest: DatasetManifest }
  | { status: 'missing'; path: string }
  /** Not JSON, or not a manifest of a version this reader knows. */
  | { status: 'corrupt'; path: string; note: string }
  /** Its content hash is another file's (the .beton was rebuilt or replaced without it). */
  | { status: 'stale'; path: string; note: string };

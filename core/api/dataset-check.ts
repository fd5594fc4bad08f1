/**
 * What `beton check` finds in a .beton (docs/check.md). `DatasetCheckResult` is exactly what
 * `beton check --json` prints; `DatasetCheck` is the sidecar (`X.beton.check.json`) that
 * keeps it beside the dataset, keyed by the file's content identity, so the app shows it
 * without decoding again. Types only: the renderer imports them with `import type`.
 */

export interface DatasetCheckResult {
  /** Samples that could not be read or decoded. */
  corrupt: Array<{ id: number; error: string }>;
  /** Groups of samples with the same decoded pixels (or, without an image field, the same stored bytes); groups whose labels disagree come first. */
  duplicates: number[][];
  /** Groups whose 64-bit perceptual (DCT) hashes are within the documented Hamming distance (exact duplicates collapsed to their first id); label disagreements first. */
  near_duplicates: number[][];
  /** Tiny, extreme aspect ratio, near-uniform images. */
  outliers: Array<{ id: number; reason: string }>;
  /** Samples per class (class name where the manifest has it, else the label number). */
  classes: Record<string, number>;
  /**
   * Present only when the report was cut (core/app/check/analyse.ts): groups past the first
   * 1,000 a kind and ids past the first 1,000 of a group are counted, not listed; and the
   * near-duplicate search stops after its comparison budget (look-alike images), then
   * `nearSearchComplete` is false and some near-duplicate groups may be missing or split.
   */
  omitted?: {
    duplicateGroups: number;
    duplicateIds: number;
    nearDuplicateGroups: number;
    nearDuplicateIds: number;
    nearSearchComplete: boolean;
  };
}

export interface DatasetCheck {
  format: 'beton-studio/dataset-check';
  version: 1;
  /**
   * The file checked: `dataSha256` is the sha256 of its whole content, read through the same
   * descriptor the check read (core/reader/file-identity.ts): the result is a claim about
   * exactly those bytes, shown only while the file still hashes to it. `contentSha256` is the
   * cheaper header-and-tables identity other records use.
   */
  beton: {
    file: string;
    contentSha256: string;
    dataSha256: string;
    /** inode:size:mtime (ns) when checked: while the file still shows it, dataSha256 is not computed again. */
    fileVersion: string;
    fileSize: number;
    numSamples: number;
  };
  /** The image field checked (null: none, duplicates compare all stored bytes) and the label field (null: none). */
  imageField: string | null;
  labelField: string | null;
  thresholds: CheckThresholds;
  result: DatasetCheckResult;
  /** How many of the first groups of result.duplicates / result.near_duplicates have labels that disagree. */
  labelConflicts: { duplicates: number; near_duplicates: number };
  elapsedMs: number;
  samplesPerSec: number;
  createdAt: string;
}

export interface CheckThresholds {
  /** Near-duplicates: at most this many of the 64 perceptual-hash bits differ. */
  hamming: number;
  /** An image whose shorter side is below this many pixels is tiny. */
  minSide: number;
  /** Longer side / shorter side above this is an extreme aspect ratio. */
  maxAspect: number;
  /** Standard deviation of the grey levels (0-255, on a 32x32 thumbnail) below this is near-uniform. */
  minStdDev: number;
}

export const DEFAULT_CHECK_THRESHOLDS: CheckThresholds = { hamming: 7, minSide: 16, maxAspect: 10, minStdDev: 2 };

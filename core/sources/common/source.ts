import type { FieldConfig } from '../../api/build-config.js';
import type { Sample } from '../../writer/sample.js';

/**
 * A dataset source: yields samples (records keyed by field name, values in the form each
 * field's encoder accepts) and proposes a schema the user can edit. Sources stream: a
 * large table is never loaded whole.
 */
export interface DatasetSource {
  /** 'image_folder', 'image_list', 'csv', 'parquet', 'jsonl', 'npy', 'npz', … */
  readonly kind: string;
  /** What the source was opened from (for messages and reports). */
  readonly path: string;
  /** Number of samples when known cheaply, else null (the writer then spills and relocates). */
  readonly length: number | null;
  /** Where relative image paths resolve from. */
  readonly baseDir?: string;
  /** The detected schema, as build-config field entries (editable, then passed back). */
  detectSchema(): Promise<FieldConfig[]>;
  /**
   * Samples in source order for the given fields. `start`/`end` select a contiguous
   * slice (sources that can seek skip cheaply; others read and drop).
   */
  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample>;
  /** Total bytes of the source files read (for the compression ratio of the build report), if known. */
  sourceBytes?(): number | null;
  /** Counts the samples by reading the source through, for sources whose `length` is null (a --shard k/N slice needs the total). */
  countSamples?(): Promise<number>;
  /** Names of the `label` column's values in label order (class folders), for the sidecar manifest; null when there are none. */
  classNames?(): readonly string[] | null;
}

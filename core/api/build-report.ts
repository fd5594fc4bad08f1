/**
 * What a build reports: the CLI prints it, the app shows it, the runs database stores it.
 * Part of the contract so that the renderer (types only from core/api) shares it.
 */
import type { WriterTimings } from './writer-timings.js';

/** Why a source item was left out of the dataset ('skip' policy). */
export interface SkippedSample {
  /** Position in the source (after range/shard selection). */
  index: number;
  /** The file or row it came from, when known. */
  source?: string;
  field?: string;
  reason: string;
}

/** DatasetWriter's report of one written file. */
export interface WriteReport {
  path: string;
  numSamples: number;
  /** Source items left out under onError 'skip' (empty otherwise). */
  skipped: SkippedSample[];
  pages: number;
  pageSize: number;
  fileSize: number;
  elapsedMs: number;
  samplesPerSec: number;
  /** Heap bytes per field (metadata-only fields: 0). */
  heapBytes: Record<string, number>;
  /** Per image field: how many samples were stored raw and as JPEG, and how many JPEGs passed through unchanged. */
  imageModes: Record<string, { raw: number; jpg: number; passThrough: number }>;
  /** Bytes of the source files read, when the fields report them (images). */
  sourceBytes: number;
  /** Where the time went, when the writer was asked (DatasetWriterOptions.timings). */
  timings?: WriterTimings;
}

/** buildDataset's report: the write report plus where the samples came from. */
export interface BuildReport extends WriteReport {
  source: { kind: string; path: string; items: number };
  /** Source bytes ÷ output file bytes, when the source size is known. */
  compressionRatio: number | null;
  /** JPEGs stored unchanged, over all image fields. */
  passThrough: number;
  /** The skipped-samples report written next to the output ('skip' policy), if any. */
  reportPath: string | null;
  /** The sidecar manifest written next to the output (OUT.beton.manifest.json; docs/dataset-manifest.md). */
  manifestPath?: string;
}

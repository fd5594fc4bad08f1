import type { StreamTarget } from './output-file.js';
import type { Sample } from './sample.js';

/** What `onProgress` receives, after each chunk of samples placed. */
export interface WriteProgress {
  /** Source items handled (written + skipped). */
  done: number;
  written: number;
  skipped: number;
  /** Null when the source does not say how many samples it has. */
  total: number | null;
  elapsedMs: number;
  /** The average since the start (start-up included): what the CLI prints. */
  samplesPerSec: number;
  /**
   * Samples/s over the last second (rate-window.ts): what the app shows and charts. Null
   * until the reports span RATE_MIN_SPAN_MS (the first report is only the baseline).
   */
  recentSamplesPerSec: number | null;
  etaMs: number | null;
  bytesWritten: number;
}

export interface DatasetWriterOptions {
  /** Power of two; default 8 MiB. Below FFCV's 2 MiB minimum only with allowSmallPages. */
  pageSize?: number;
  /** Encoder threads; default = cores. 0 encodes on the calling thread. */
  numWorkers?: number;
  /** Samples per work item sent to a worker (default 100, as FFCV). */
  chunkSize?: number;
  /** Expected number of samples, when the source has no `length`. */
  numSamples?: number;
  /** 'fail' (default): the first bad sample stops the build, no file is left. 'skip': leave it out, report it. */
  onError?: 'fail' | 'skip';
  signal?: AbortSignal;
  /**
   * Stream the output as it is written (an S3 multipart upload): only the file's head and
   * tail stay in the local file, which is sparse (streamed-file.ts). The caller sends the
   * rest once the write is done.
   */
  stream?: StreamTarget;
  onProgress?: (p: WriteProgress) => void;
  /** Seed of the per-sample draws ('proportion' write mode). */
  seed?: number;
  /**
   * Position of the first sample in the whole source (a --range/--shard build): draws are
   * keyed by (seed, source position), so shards merged in order equal one whole build.
   */
  sampleIndexBase?: number;
  /** Where relative image paths resolve from. */
  baseDir?: string;
  /** Accept page sizes below FFCV's writer minimum (FFCV's reader reads them; tests use it). */
  allowSmallPages?: boolean;
  /** More modules that register custom field types, imported by every worker (those registered with `module` are imported anyway). */
  fieldModules?: string[];
  /** Report where the time went (WriteReport.timings): per-stage worker and main-thread accounts. */
  timings?: boolean;
}

export type SampleSource = AsyncIterable<Sample> | Iterable<Sample>;

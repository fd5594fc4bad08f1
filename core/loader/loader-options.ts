import type { Field } from '../fields/field.js';
import type { OrderFactory, OrderName } from './orders/index.js';
import type { PipelineConfig } from './outputs.js';
import type { RemoteCacheOptions } from './memory/remote-cache.js';

/** What Loader.open takes (docs/loader.md): only batchSize is required. */
export interface LoaderOptions {
  batchSize: number;
  /**
   * Decode threads; default = cores. At most max(64, 2 × cores) and one per row of a batch
   * (more would only idle): a larger number is lowered to that (Loader.numWorkers). When every
   * output is a plain int/float copy the consumer's thread gathers the batches and one
   * worker computes orders ahead, whatever the number asked.
   */
  numWorkers?: number;
  /** Default 'sequential', as FFCV's Loader; a LoaderConfig shuffles (LOADER_DEFAULTS says why). */
  order?: OrderName | OrderFactory;
  /** Ordering and augmentation seed; default 0 (distributed) or random. */
  seed?: number;
  /** Sample ids to visit (default all). */
  indices?: ArrayLike<number>;
  /** Drop the last partial batch (default true, as FFCV). */
  dropLast?: boolean;
  /** Batches decoded ahead of the consumer (default 3, at most 1024); the ring has batchesAhead + 1 slots (never more than the epoch's batches + 1). */
  batchesAhead?: number;
  /** true (default): memory-map the file, the OS caches pages. false: the loader's own bounded page cache. */
  osCache?: boolean;
  /** Size of the process cache's page pool (osCache false); default 1 GiB, at least one batch's pages. */
  processCacheBytes?: number;
  distributed?: { rank: number; worldSize: number };
  /** A remote file (s3://, https://): its page pool, parallel GETs and optional disk cache (docs/remote.md). */
  remote?: Omit<RemoteCacheOptions, 'fields' | 'batchSize'>;
  /**
   * Crop decoders decode JPEGs at a reduced DCT scale (1/2, 1/4, 1/8) where that still
   * covers the output: faster, pixels slightly different from FFCV's. Default false: the
   * batches equal FFCV's byte for byte (docs/loader.md, "Fast decode").
   */
  fastDecode?: boolean;
  /** Per output: steps (a decoder first, else the field's default), null to disable a field, or {source, steps} for an extra output. */
  pipelines?: Record<string, PipelineConfig>;
  customFields?: Record<string, Field>;
  fieldModules?: string[];
  signal?: AbortSignal;
}

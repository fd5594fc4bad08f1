import { rename, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { WriteReport } from '../api/build-report.js';
import type { Allocation } from '../format/alloc-table.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_WRITER_PAGE_SIZE } from '../format/constants.js';
import { BetonEncodeError } from '../format/errors.js';
import { isPowerOfTwo } from '../format/regions.js';
import type { EncodedValue } from '../fields/field.js';
import { normalizeSchema, type NamedField, type Schema } from '../fields/schema.js';
import { openTempFor, removeStaleTemps, tempPathFor } from './temp-files.js';
import { assertWorkerFields } from './worker-fields.js';
import type { DatasetWriterOptions, SampleSource } from './write-options.js';
import { WriteJob } from './write-job.js';

export type { DatasetWriterOptions, SampleSource, WriteProgress } from './write-options.js';
export type { WriteReport };

/**
 * Writes a .beton file. Encoding runs in a pool of worker threads; placement into pages
 * runs here, in sample order, exactly as FFCV's single-worker allocator, so the file is
 * the same whatever `numWorkers` is (and byte-identical to FFCV's for the same inputs).
 * The file is written under a temporary name and renamed only when complete.
 *
 * Memory stays flat whatever the dataset size: one page, a bounded number of chunks in
 * flight, and buffered writes of the metadata and allocation tables.
 */
export class DatasetWriter {
  readonly fields: NamedField[];
  readonly pageSize: number;

  constructor(
    readonly path: string,
    schema: Schema,
    private readonly options: DatasetWriterOptions = {},
  ) {
    this.fields = normalizeSchema(schema);
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    const ps = this.pageSize;
    if (!isPowerOfTwo(ps) || ps > MAX_PAGE_SIZE) {
      throw new BetonEncodeError('BAD_OPTIONS', `pageSize must be a power of two below 2^32, got ${ps}`);
    }
    if (ps < MIN_WRITER_PAGE_SIZE && !options.allowSmallPages) {
      throw new BetonEncodeError(
        'BAD_OPTIONS',
        `pageSize ${ps} is below FFCV's minimum of ${MIN_WRITER_PAGE_SIZE} (2 MiB); FFCV would refuse it`,
      );
    }
    const cs = options.chunkSize ?? 100;
    if (!Number.isInteger(cs) || cs < 1) throw new BetonEncodeError('BAD_OPTIONS', `chunkSize must be a positive integer, got ${cs}`);
    const nw = options.numWorkers;
    if (nw !== undefined && (!Number.isInteger(nw) || nw < 0))
      throw new BetonEncodeError('BAD_OPTIONS', `numWorkers must be a non-negative integer, got ${nw}`);
    // Workers rebuild fields from the registry: a subclass it does not know is refused now, not silently replaced.
    if (nw !== 0) assertWorkerFields(this.fields);
  }

  async write(source: SampleSource): Promise<WriteReport> {
    const t0 = performance.now();
    const out = resolve(this.path);
    // Files a killed earlier write of this output left behind (its process is gone).
    await removeStaleTemps(out);
    const tmp = tempPathFor(out);
    const capacity = this.options.numSamples ?? lengthOf(source);
    // Exclusive: a fresh name, never an existing file or a link planted there.
    const fh = await openTempFor(tmp, out, 'wx+');
    const job = new WriteJob(this.fields, this.pageSize, capacity, fh, tmp, this.options, t0);
    let ok = false;
    try {
      await job.run(source);
      const tPlaced = performance.now();
      const report = await job.finish();
      await fh.sync();
      await fh.close();
      this.options.signal?.throwIfAborted();
      await rename(tmp, out);
      ok = true;
      const elapsedMs = performance.now() - t0;
      const timings = job.timings(elapsedMs, performance.now() - tPlaced);
      return { ...report, path: out, elapsedMs, samplesPerSec: report.numSamples / (elapsedMs / 1000), ...(timings ? { timings } : {}) };
    } finally {
      await job.cleanup();
      if (!ok) {
        await fh.close().catch(() => undefined);
        await unlink(tmp).catch(() => undefined);
      }
    }
  }
}

function lengthOf(source: SampleSource): number | null {
  const s = source as { length?: unknown; size?: unknown };
  if (typeof s.length === 'number') return s.length;
  if (typeof s.size === 'number') return s.size;
  return null;
}

export type { Allocation, EncodedValue };

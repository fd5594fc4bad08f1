import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { encodeAllocation } from '../format/alloc-table.js';
import { ALLOC_ENTRY_SIZE, DEFAULT_PAGE_SIZE, FORMAT_VERSION, MAX_PAGE_SIZE, MIN_WRITER_PAGE_SIZE } from '../format/constants.js';
import { encodeDescriptor } from '../format/descriptor.js';
import { BetonEncodeError } from '../format/errors.js';
import { encodeHeader } from '../format/header.js';
import { recordLayout } from '../format/record-layout.js';
import { isPowerOfTwo, regions } from '../format/regions.js';
import type { EncodedValue } from '../fields/field.js';
import { normalizeSchema, schemaToSpecs, type NamedField, type Schema } from '../fields/schema.js';
import { encodeSample, type Sample } from './encode-sample.js';
import type { ChunkJob, ChunkResult, WorkerInit } from './encode-worker.js';
import { PageAllocator } from './page-allocator.js';
import { spawnWorker } from './spawn-worker.js';
import type { Worker } from 'node:worker_threads';

export interface WriteProgress {
  done: number;
  /** Null when the source does not say how many samples it has. */
  total: number | null;
  elapsedMs: number;
  samplesPerSec: number;
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
  signal?: AbortSignal;
  onProgress?: (p: WriteProgress) => void;
  /** Seed of the per-sample draws ('proportion' write mode). */
  seed?: number;
  /** Where relative image paths resolve from. */
  baseDir?: string;
  /** Accept page sizes below FFCV's writer minimum (FFCV's reader reads them; tests use it). */
  allowSmallPages?: boolean;
  /** Modules that register custom field types; imported by every worker. */
  fieldModules?: string[];
}

export interface WriteReport {
  path: string;
  numSamples: number;
  pages: number;
  pageSize: number;
  fileSize: number;
  elapsedMs: number;
  samplesPerSec: number;
  /** Heap bytes per field (metadata-only fields: 0). */
  heapBytes: Record<string, number>;
  /** Per image field: how many samples were stored raw and as JPEG. */
  imageModes: Record<string, { raw: number; jpg: number }>;
}

export type SampleSource = AsyncIterable<Sample> | Iterable<Sample>;

/**
 * Writes a .beton file. Encoding runs in a pool of worker threads; placement into pages
 * runs here, in sample order, exactly as FFCV's single-worker allocator, so the file is
 * the same whatever `numWorkers` is (and byte-identical to FFCV's for non-JPEG data).
 * The file is written under a temporary name and renamed only when complete.
 *
 * Memory: one page, a bounded number of chunks in flight, plus the metadata table and
 * allocation table (tens of bytes per sample), as in FFCV.
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
      throw new BetonEncodeError('BAD_OPTIONS', `pageSize ${ps} is below FFCV's minimum of ${MIN_WRITER_PAGE_SIZE} (2 MiB); FFCV would refuse it`);
    }
    const cs = options.chunkSize ?? 100;
    if (!Number.isInteger(cs) || cs < 1) throw new BetonEncodeError('BAD_OPTIONS', `chunkSize must be a positive integer, got ${cs}`);
  }

  async write(source: SampleSource): Promise<WriteReport> {
    const t0 = performance.now();
    const opts = this.options;
    const out = resolve(this.path);
    const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    const total = opts.numSamples ?? lengthOf(source);
    const layout = recordLayout(this.fields.map((f) => f.field.metadata));
    const fh = await open(tmp, 'w+');
    let ok = false;
    const job = new WriteJob(this.fields, layout, this.pageSize, total, fh, tmp, opts, t0);
    try {
      const n = await job.run(source);
      const report = await job.finish(n);
      await job.cleanup();
      await fh.sync();
      await fh.close();
      opts.signal?.throwIfAborted();
      await rename(tmp, out);
      ok = true;
      const elapsedMs = performance.now() - t0;
      return { ...report, path: out, elapsedMs, samplesPerSec: n / (elapsedMs / 1000) };
    } finally {
      if (!ok) {
        await job.cleanup();
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

/** State of one write: the allocator, metadata table, ordering of worker results. */
class WriteJob {
  private readonly allocator: PageAllocator;
  private meta: Uint8Array;
  private readonly heapBytes: number[];
  private readonly imageModes: Array<{ raw: number; jpg: number } | null>;
  private pageWrites: Promise<unknown> = Promise.resolve();
  private bytesWritten = 0;
  /** When the sample count is unknown up front, pages go to a spill file and move at the end. */
  private readonly spill: boolean;
  private spillHandle: FileHandle | null = null;
  private readonly spillPath: string;
  private dataStart: number;

  constructor(
    private readonly fields: NamedField[],
    private readonly layout: { offsets: number[]; size: number },
    private readonly pageSize: number,
    private readonly total: number | null,
    private readonly fh: FileHandle,
    tmpPath: string,
    private readonly opts: DatasetWriterOptions,
    private readonly t0: number,
  ) {
    this.spillPath = `${tmpPath}.pages`;
    this.spill = total === null;
    this.dataStart = total === null ? 0 : regions(fields.length, total, layout.size, pageSize).dataStart;
    this.meta = new Uint8Array(layout.size * (total ?? 1024));
    this.heapBytes = fields.map(() => 0);
    this.imageModes = fields.map((f) => (f.field.type === 'rgb_image' ? { raw: 0, jpg: 0 } : null));
    this.allocator = new PageAllocator(pageSize, (n, bytes) => this.writePage(n, bytes));
  }

  private writePage(pageNumber: number, bytes: Uint8Array): void {
    const copy = bytes.slice();
    const pos = pageNumber * this.pageSize;
    this.bytesWritten += copy.byteLength;
    this.pageWrites = this.pageWrites.then(async () => {
      const h = this.spill ? await this.spillFile() : this.fh;
      await h.write(copy, 0, copy.byteLength, (this.spill ? 0 : this.dataStart) + pos);
    });
    // Surface write errors in finish(), not as an unhandled rejection.
    this.pageWrites.catch(() => undefined);
  }

  private async spillFile(): Promise<FileHandle> {
    this.spillHandle ??= await open(this.spillPath, 'w+');
    return this.spillHandle;
  }

  /** Removes the spill file, if any (on success and on failure). */
  async cleanup(): Promise<void> {
    await this.pageWrites.catch(() => undefined);
    if (this.spillHandle) {
      await this.spillHandle.close().catch(() => undefined);
      this.spillHandle = null;
      await unlink(this.spillPath).catch(() => undefined);
    }
  }

  async run(source: SampleSource): Promise<number> {
    const numWorkers = this.opts.numWorkers ?? availableParallelism();
    const chunkSize = this.opts.chunkSize ?? 100;
    const signal = this.opts.signal;
    signal?.throwIfAborted();
    let placed = 0;
    const place = (encoded: EncodedValue[][], start: number): void => {
      for (let i = 0; i < encoded.length; i++) this.placeSample(start + i, encoded[i]!);
      placed = start + encoded.length;
      this.progress(placed);
    };
    if (numWorkers === 0) {
      const { nodeImageCodec } = await import('../native/image-codec.js');
      const codec = this.fields.some((f) => f.field.type === 'rgb_image') ? nodeImageCodec() : undefined;
      let i = 0;
      for await (const s of source) {
        signal?.throwIfAborted();
        const enc = await encodeSample(this.fields, s, i, { codec, seed: this.opts.seed ?? 0, baseDir: this.opts.baseDir });
        this.placeSample(i, enc);
        i++;
        if (i % chunkSize === 0) this.progress(i);
      }
      placed = i;
      this.progress(placed);
      return placed;
    }
    const pool = new EncodePool(numWorkers, {
      fields: schemaToSpecs(this.fields),
      fieldModules: this.opts.fieldModules ?? [],
      seed: this.opts.seed ?? 0,
      baseDir: this.opts.baseDir,
    });
    try {
      await pool.run(source, chunkSize, place, signal);
    } finally {
      await pool.close();
    }
    return placed;
  }

  private progress(done: number): void {
    const cb = this.opts.onProgress;
    if (!cb) return;
    const elapsedMs = performance.now() - this.t0;
    const rate = done / Math.max(elapsedMs / 1000, 1e-9);
    cb({
      done,
      total: this.total,
      elapsedMs,
      samplesPerSec: rate,
      etaMs: this.total !== null && rate > 0 ? ((this.total - done) / rate) * 1000 : null,
      bytesWritten: this.bytesWritten,
    });
  }

  private placeSample(index: number, encoded: EncodedValue[]): void {
    if (this.total !== null && index >= this.total) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded more than the ${this.total} samples it announced`);
    }
    const recSize = this.layout.size;
    if ((index + 1) * recSize > this.meta.byteLength) {
      const grown = new Uint8Array(this.meta.byteLength * 2);
      grown.set(this.meta);
      this.meta = grown;
    }
    const ptrs = this.allocator.placeSample(index, encoded.map((e) => e.heap));
    const base = index * recSize;
    for (let f = 0; f < encoded.length; f++) {
      const e = encoded[f]!;
      const field = this.fields[f]!.field;
      const off = base + this.layout.offsets[f]!;
      this.meta.set(e.meta, off);
      const ptr = ptrs[f];
      if (field.pointerOffset !== null && ptr !== null && ptr !== undefined) {
        // Relative pointers are patched to absolute ones in finish() when spilling.
        new DataView(this.meta.buffer, off + field.pointerOffset, 8).setBigInt64(0, BigInt(ptr + this.dataStart), true);
      }
      if (e.heap) this.heapBytes[f]! += e.heap.byteLength;
      const modes = this.imageModes[f];
      if (modes) {
        if (e.meta[0] === 0) modes.jpg++;
        else modes.raw++;
      }
    }
  }

  async finish(n: number): Promise<Omit<WriteReport, 'path' | 'elapsedMs' | 'samplesPerSec'>> {
    if (this.total !== null && n !== this.total) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded ${n} samples but announced ${this.total}`);
    }
    this.allocator.finish();
    await this.pageWrites;
    // Padding before the first page and each page's zero tail are holes the OS fills with zeros.
    const F = this.fields.length;
    const reg = regions(F, n, this.layout.size, this.pageSize);
    const pages = this.allocator.pagesUsed;
    if (this.spill) await this.relocate(reg.dataStart, pages, n);
    // Header is written last with the real allocation-table pointer, as FFCV does.
    const allocTablePtr = pages > 0 ? reg.dataStart + pages * this.pageSize : reg.metadataEnd;
    const descriptors = this.fields.map(({ name, field }) => encodeDescriptor({ typeId: field.typeId, name, arguments: field.encodeArguments() }));
    let pos = 24;
    for (const d of descriptors) {
      await this.fh.write(d, 0, d.byteLength, pos);
      pos += d.byteLength;
    }
    await this.fh.write(this.meta, 0, n * this.layout.size, reg.metadata.offset);
    const allocs = this.allocator.allocations;
    const table = new Uint8Array(allocs.length * ALLOC_ENTRY_SIZE);
    allocs.forEach((a, i) => encodeAllocation({ ...a, ptr: a.ptr + reg.dataStart }, table, i * ALLOC_ENTRY_SIZE));
    await this.fh.truncate(allocTablePtr);
    await this.fh.write(table, 0, table.byteLength, allocTablePtr);
    const header = encodeHeader({ version: FORMAT_VERSION, numFields: F, pageSize: this.pageSize, numSamples: n, allocTablePtr });
    await this.fh.write(header, 0, header.byteLength, 0);
    const heapBytes: Record<string, number> = {};
    const imageModes: Record<string, { raw: number; jpg: number }> = {};
    this.fields.forEach(({ name }, f) => {
      heapBytes[name] = this.heapBytes[f]!;
      const m = this.imageModes[f];
      if (m) imageModes[name] = m;
    });
    return { numSamples: n, pages, pageSize: this.pageSize, fileSize: allocTablePtr + table.byteLength, heapBytes, imageModes };
  }

  /** Spill mode: pointers were stored relative to the data region; now D0 is known. */
  private async relocate(dataStart: number, pages: number, n: number): Promise<void> {
    this.dataStart = dataStart;
    for (let i = 0; i < n; i++) {
      for (let f = 0; f < this.fields.length; f++) {
        const field = this.fields[f]!.field;
        if (field.pointerOffset === null) continue;
        const off = i * this.layout.size + this.layout.offsets[f]! + field.pointerOffset;
        const v = new DataView(this.meta.buffer, off, 8);
        v.setBigInt64(0, v.getBigInt64(0, true) + BigInt(dataStart), true);
      }
    }
    if (!this.spillHandle || pages === 0) return;
    const buf = new Uint8Array(this.pageSize);
    for (let p = 0; p < pages; p++) {
      const { bytesRead } = await this.spillHandle.read(buf, 0, this.pageSize, p * this.pageSize);
      await this.fh.write(buf, 0, bytesRead, dataStart + p * this.pageSize);
    }
  }
}

/** A fixed pool of encode workers fed chunks in order, with a bounded number in flight. */
class EncodePool {
  private readonly workers: Worker[];

  constructor(n: number, init: WorkerInit) {
    this.workers = Array.from({ length: n }, () => spawnWorker('./encode-worker.js', import.meta.url, init));
  }

  async run(
    source: SampleSource,
    chunkSize: number,
    place: (encoded: EncodedValue[][], start: number) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const iterator = (Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : toAsync(source as Iterable<Sample>)) as AsyncIterator<Sample>;
    const idle = [...this.workers];
    const starts = new Map<number, number>();
    const ready = new Map<number, EncodedValue[][]>();
    let nextChunk = 0;
    let nextToPlace = 0;
    let start = 0;
    let exhausted = false;
    let failure: Error | null = null;

    return new Promise<void>((resolveRun, rejectRun) => {
      let settled = false;
      const fail = (e: Error): void => {
        if (settled) return;
        settled = true;
        failure = e;
        rejectRun(e);
      };
      const onAbort = (): void => fail(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });

      const maybeDone = (): void => {
        if (exhausted && idle.length === this.workers.length && ready.size === 0 && !settled) {
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          resolveRun();
        }
      };

      // The source iterator is pulled by one dispatch at a time so chunks stay contiguous.
      let pulling: Promise<void> = Promise.resolve();
      const dispatch = (w: Worker): Promise<void> => (pulling = pulling.then(() => pull(w)));
      const pull = async (w: Worker): Promise<void> => {
        if (exhausted || failure) {
          idle.push(w);
          maybeDone();
          return;
        }
        const samples: Sample[] = [];
        try {
          while (samples.length < chunkSize) {
            const r = await iterator.next();
            if (r.done) {
              exhausted = true;
              break;
            }
            samples.push(r.value);
          }
        } catch (e) {
          fail(e as Error);
          return;
        }
        if (samples.length === 0) {
          idle.push(w);
          maybeDone();
          return;
        }
        const chunk = nextChunk++;
        starts.set(chunk, start);
        start += samples.length;
        const job: ChunkJob = { chunk, start: starts.get(chunk)!, samples };
        w.postMessage(job);
      };

      for (const w of this.workers) {
        w.on('message', (res: ChunkResult) => {
          if (settled) return;
          if (!res.ok) {
            const err = new BetonEncodeError((res.error.code as 'BAD_VALUE') ?? 'BAD_VALUE', res.error.message, res.error);
            fail(err);
            return;
          }
          ready.set(res.chunk, res.encoded as EncodedValue[][]);
          try {
            while (ready.has(nextToPlace)) {
              place(ready.get(nextToPlace)!, starts.get(nextToPlace)!);
              ready.delete(nextToPlace);
              starts.delete(nextToPlace);
              nextToPlace++;
            }
          } catch (e) {
            fail(e as Error);
            return;
          }
          // Bound memory: a worker gets new work only while few chunks wait for placement.
          void dispatch(w);
        });
        w.on('error', (e) => fail(e));
        w.on('exit', (code) => {
          if (code !== 0) fail(new Error(`an encode worker exited with code ${code}`));
        });
      }
      for (const w of idle.splice(0)) void dispatch(w);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

async function* toAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

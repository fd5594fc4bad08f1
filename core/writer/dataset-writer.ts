import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { encodeAllocation, type Allocation } from '../format/alloc-table.js';
import { ALLOC_ENTRY_SIZE, DEFAULT_PAGE_SIZE, FORMAT_VERSION, MAX_PAGE_SIZE, MIN_WRITER_PAGE_SIZE } from '../format/constants.js';
import { encodeDescriptor } from '../format/descriptor.js';
import { BetonEncodeError } from '../format/errors.js';
import { encodeHeader } from '../format/header.js';
import { recordLayout, type RecordLayout } from '../format/record-layout.js';
import { isPowerOfTwo, regions } from '../format/regions.js';
import type { EncodedValue } from '../fields/field.js';
import { findFieldType, registeredFieldModules } from '../fields/registry.js';
import { normalizeSchema, type NamedField, type Schema } from '../fields/schema.js';
import { EncodePool } from './encode-pool.js';
import { encodeSample } from './encode-sample.js';
import type { Sample } from './sample.js';
import { PageAllocator } from './page-allocator.js';
import { RecordSink } from './record-sink.js';
import { openTempFor, removeStaleTemps, tempPathFor } from './temp-files.js';
import { failedOutcome, type SampleOutcome, type SkippedSample } from './sample-outcome.js';
import type { WriteReport } from '../api/build-report.js';
import { threadCpuMs } from '../native/writer-transcode.js';
import type { MainTimings, WorkerTimings, WriterTimings } from '../api/writer-timings.js';
import { setOwn } from '../format/own-keys.js';
import { RateWindow } from './rate-window.js';
import { assertWorkerFields } from './worker-fields.js';

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

export type { WriteReport };

export type SampleSource = AsyncIterable<Sample> | Iterable<Sample>;

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

/**
 * One write. With a known sample count, the data region's start (D0) is known up front:
 * pages and metadata go straight to their final offsets. With an unknown count, metadata
 * and pages go to spill files with pointers relative to D0, and are moved (pointers
 * patched) once the count is known. The allocation table always spills, since it follows
 * the pages.
 */
class WriteJob {
  private readonly layout: RecordLayout;
  private readonly allocator: PageAllocator;
  private readonly meta: RecordSink;
  private readonly allocs: RecordSink;
  private readonly heapBytes: number[];
  private readonly imageModes: Array<{ raw: number; jpg: number; passThrough: number } | null>;
  private readonly spilled = new Map<string, FileHandle>();
  private pageWrites: Promise<unknown> = Promise.resolve();
  /** Page buffers whose writes have finished, ready to be filled again (see writePage). */
  private readonly freePages: Uint8Array[] = [];
  /** The one early flush of the pages written so far has been queued (see writePage). */
  private earlySync = false;
  private bytesWritten = 0;
  private sourceBytes = 0;
  private readonly skipped: SkippedSample[] = [];
  private handled = 0;
  private readonly rateWindow = new RateWindow();
  /** Absolute D0 when the count is known; 0 while pointers are relative (spill mode). */
  private readonly dataStart: number;
  private readonly spill: boolean;
  /** With opts.timings: the main thread's account so far, and each worker's latest. */
  private readonly main: Omit<MainTimings, 'finishMs'> | null;
  private readonly cpu0: number | null;
  private workerTimings: WorkerTimings[] = [];

  constructor(
    private readonly fields: NamedField[],
    private readonly pageSize: number,
    private readonly capacity: number | null,
    private readonly fh: FileHandle,
    private readonly tmpPath: string,
    private readonly opts: DatasetWriterOptions,
    private readonly t0: number,
  ) {
    this.layout = recordLayout(fields.map((f) => f.field.metadata));
    this.spill = capacity === null;
    // D0 is reserved for `capacity` samples; if some are skipped, the gap is zero padding
    // (pointers are absolute, so FFCV reads such a file as any other).
    const reg = regions(fields.length, capacity ?? 0, this.layout.size, pageSize);
    this.dataStart = this.spill ? 0 : reg.dataStart;
    this.meta = new RecordSink(
      this.spill ? () => this.spillFile('meta') : async () => fh,
      this.spill ? 0 : reg.metadata.offset,
      this.layout.size,
    );
    this.allocs = new RecordSink(() => this.spillFile('alloc'), 0, ALLOC_ENTRY_SIZE, 1 << 20);
    this.heapBytes = fields.map(() => 0);
    this.imageModes = fields.map((f) => (f.field.type === 'rgb_image' ? { raw: 0, jpg: 0, passThrough: 0 } : null));
    this.main = opts.timings ? { cpuMs: null, placeMs: 0, pageWriteMs: 0 } : null;
    this.cpu0 = opts.timings ? threadCpuMs() : null;
    this.allocator = new PageAllocator(
      pageSize,
      (n, bytes) => this.writePage(n, bytes),
      (a) => encodeAllocation(a, this.allocs.next(), 0),
    );
  }

  private async spillFile(kind: string): Promise<FileHandle> {
    let h = this.spilled.get(kind);
    if (!h) {
      h = await open(`${this.tmpPath}.${kind}`, 'wx+');
      this.spilled.set(kind, h);
    }
    return h;
  }

  /**
   * Queues a full page's write (`bytes`: the page up to its last used byte; the zero tail
   * stays a hole) and hands the allocator a buffer to fill next: one whose write has
   * finished, else a new one. No copy, no clearing: with a page filling every few hundred
   * milliseconds and written in a few, two buffers take turns.
   */
  private writePage(pageNumber: number, bytes: Uint8Array): Uint8Array {
    const t0 = this.main ? performance.now() : 0;
    const pos = pageNumber * this.pageSize;
    this.bytesWritten += this.pageSize;
    const buffer = new Uint8Array(bytes.buffer, bytes.byteOffset, this.pageSize);
    // Near the end (a known count, 7/8 placed), the pages so far are also flushed to disk,
    // once, while the last samples encode: the fsync before the rename then has a page or
    // two left instead of the whole file (measured ~20 of ~45 ms at the end of a 55 MB build).
    const syncNow = !this.spill && !this.earlySync && this.capacity !== null && this.meta.count * 8 >= this.capacity * 7;
    if (syncNow) this.earlySync = true;
    this.pageWrites = this.pageWrites.then(async () => {
      const h = this.spill ? await this.spillFile('pages') : this.fh;
      await h.write(bytes, 0, bytes.byteLength, this.dataStart + pos);
      this.freePages.push(buffer);
      if (syncNow) await h.datasync();
    });
    // Surfaces in finish(), not as an unhandled rejection.
    this.pageWrites.catch(() => undefined);
    const next = this.freePages.pop() ?? new Uint8Array(this.pageSize);
    if (this.main) this.main.pageWriteMs += performance.now() - t0;
    return next;
  }

  /** The write's account (opts.timings), or null. Page writes are inside placement, so counted apart from it. */
  timings(wallMs: number, finishMs: number): WriterTimings | null {
    if (!this.main) return null;
    const c1 = threadCpuMs();
    const cpuMs = this.cpu0 !== null && c1 !== null ? c1 - this.cpu0 : null;
    return {
      wallMs,
      main: { ...this.main, cpuMs, placeMs: Math.max(0, this.main.placeMs - this.main.pageWriteMs), finishMs },
      workers: this.workerTimings,
    };
  }

  async run(source: SampleSource): Promise<void> {
    const numWorkers = this.opts.numWorkers ?? availableParallelism();
    const chunkSize = this.opts.chunkSize ?? 100;
    const signal = this.opts.signal;
    signal?.throwIfAborted();
    if (numWorkers === 0) {
      const { nodeImageCodec } = await import('../images/node-image-codec.js');
      const codec = this.fields.some((f) => findFieldType(f.field.type)?.usesImageCodec) ? nodeImageCodec() : undefined;
      let i = 0;
      for await (const s of source) {
        signal?.throwIfAborted();
        let outcome: SampleOutcome;
        try {
          outcome = {
            ok: true,
            values: await encodeSample(this.fields, s, i, {
              codec,
              seed: this.opts.seed ?? 0,
              baseDir: this.opts.baseDir,
              indexBase: this.opts.sampleIndexBase,
              maxObjectBytes: this.pageSize,
            }),
          };
        } catch (e) {
          outcome = failedOutcome(i, e);
        }
        this.place(i, outcome);
        i++;
        if (i % chunkSize === 0) this.progress();
      }
      this.progress();
      return;
    }
    const pool = new EncodePool(numWorkers, {
      fields: this.fields.map(({ name, field }) => ({ name, spec: field.toSpec() })),
      fieldModules: registeredFieldModules(this.opts.fieldModules),
      seed: this.opts.seed ?? 0,
      maxObjectBytes: this.pageSize,
      baseDir: this.opts.baseDir,
      indexBase: this.opts.sampleIndexBase,
      timings: this.opts.timings ?? false,
    });
    try {
      await pool.run(
        source,
        chunkSize,
        (outcomes, start) => {
          const t0 = this.main ? performance.now() : 0;
          outcomes.forEach((o, k) => this.place(start + k, o));
          if (this.main) this.main.placeMs += performance.now() - t0;
          this.progress();
        },
        signal,
        this.capacity,
      );
    } finally {
      this.workerTimings = [...pool.timings.values()];
      await pool.close();
    }
  }

  private progress(): void {
    const cb = this.opts.onProgress;
    if (!cb) return;
    const elapsedMs = performance.now() - this.t0;
    const rate = this.handled / Math.max(elapsedMs / 1000, 1e-9);
    cb({
      done: this.handled,
      written: this.meta.count,
      skipped: this.skipped.length,
      total: this.capacity,
      elapsedMs,
      samplesPerSec: rate,
      recentSamplesPerSec: this.rateWindow.add(elapsedMs, this.handled),
      etaMs: this.capacity !== null && rate > 0 ? ((this.capacity - this.handled) / rate) * 1000 : null,
      bytesWritten: this.bytesWritten,
    });
  }

  /** Places source item `index` (or records why it was skipped). Called in source order. */
  private place(index: number, outcome: SampleOutcome): void {
    this.handled++;
    if (!outcome.ok) {
      if (this.opts.onError !== 'skip') {
        const s = outcome.skipped;
        throw new BetonEncodeError(outcome.code ?? 'BAD_VALUE', s.reason, {
          sample: index,
          ...(s.source ? { source: s.source } : {}),
          ...(s.field ? { field: s.field } : {}),
        });
      }
      this.skipped.push(outcome.skipped);
      return;
    }
    const encoded = outcome.values;
    const k = this.meta.count;
    if (this.capacity !== null && k >= this.capacity) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded more than the ${this.capacity} samples it announced`);
    }
    const ptrs = this.allocator.placeSample(
      k,
      encoded.map((e) => e.heap),
    );
    const rec = this.meta.next();
    const view = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
    for (let f = 0; f < encoded.length; f++) {
      const e = encoded[f]!;
      const field = this.fields[f]!.field;
      const off = this.layout.offsets[f]!;
      rec.set(e.meta, off);
      const ptr = ptrs[f];
      if (field.pointerOffset !== null && ptr !== null && ptr !== undefined) {
        view.setBigInt64(off + field.pointerOffset, BigInt(ptr + this.dataStart), true);
      }
      if (e.heap) this.heapBytes[f]! += e.heap.byteLength;
      if (e.sourceBytes) this.sourceBytes += e.sourceBytes;
      const modes = this.imageModes[f];
      if (modes) {
        if (e.meta[0] === 0) modes.jpg++;
        else modes.raw++;
        if (e.passThrough) modes.passThrough++;
      }
    }
  }

  async finish(): Promise<Omit<WriteReport, 'path' | 'elapsedMs' | 'samplesPerSec'>> {
    const n = this.meta.count;
    if (this.capacity !== null && this.handled !== this.capacity) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded ${this.handled} samples but announced ${this.capacity}`);
    }
    this.allocator.finish();
    await this.pageWrites;
    await this.meta.close();
    await this.allocs.close();
    const F = this.fields.length;
    const reg = regions(F, n, this.layout.size, this.pageSize);
    const pages = this.allocator.pagesUsed;
    const dataStart = this.spill ? reg.dataStart : this.dataStart;
    if (this.spill) await this.relocate(dataStart, pages, n);
    // Padding before the first page and each page's zero tail are holes the OS fills with zeros.
    const allocTablePtr = pages > 0 ? dataStart + pages * this.pageSize : reg.metadataEnd;
    let pos = 24;
    for (const { name, field } of this.fields) {
      const d = encodeDescriptor({ typeId: field.typeId, name, arguments: field.encodeArguments() });
      await this.fh.write(d, 0, d.byteLength, pos);
      pos += d.byteLength;
    }
    await this.fh.truncate(allocTablePtr);
    const tableBytes = await this.copyAllocTable(allocTablePtr, dataStart);
    const header = encodeHeader({ version: FORMAT_VERSION, numFields: F, pageSize: this.pageSize, numSamples: n, allocTablePtr });
    await this.fh.write(header, 0, header.byteLength, 0);
    const heapBytes: Record<string, number> = {};
    const imageModes: WriteReport['imageModes'] = {};
    this.fields.forEach(({ name }, f) => {
      setOwn(heapBytes, name, this.heapBytes[f]!);
      const m = this.imageModes[f];
      if (m) setOwn(imageModes, name, m);
    });
    return {
      numSamples: n,
      skipped: this.skipped,
      pages,
      pageSize: this.pageSize,
      fileSize: allocTablePtr + tableBytes,
      heapBytes,
      imageModes,
      sourceBytes: this.sourceBytes,
    };
  }

  /** Appends the spilled allocation table at T, making pointers absolute. */
  private async copyAllocTable(T: number, dataStart: number): Promise<number> {
    const src = this.spilled.get('alloc');
    const total = this.allocs.count * ALLOC_ENTRY_SIZE;
    if (!src || total === 0) return 0;
    const buf = new Uint8Array(ALLOC_ENTRY_SIZE * 43690);
    for (let done = 0; done < total;) {
      const { bytesRead } = await src.read(buf, 0, Math.min(buf.byteLength, total - done), done);
      const view = new DataView(buf.buffer, 0, bytesRead);
      for (let o = 0; o < bytesRead; o += ALLOC_ENTRY_SIZE)
        view.setBigInt64(o + 8, view.getBigInt64(o + 8, true) + BigInt(dataStart), true);
      await this.fh.write(buf, 0, bytesRead, T + done);
      done += bytesRead;
    }
    return total;
  }

  /** Spill mode: moves metadata (pointers made absolute) and pages to their final offsets. */
  private async relocate(dataStart: number, pages: number, n: number): Promise<void> {
    const R = this.layout.size;
    const metaSrc = this.spilled.get('meta');
    const M0 = regions(this.fields.length, n, R, this.pageSize).metadata.offset;
    if (metaSrc && n > 0) {
      const per = Math.max(1, Math.floor((4 << 20) / R));
      const buf = new Uint8Array(per * R);
      const ptrFields = this.fields.map((f, i) => ({ p: f.field.pointerOffset, off: this.layout.offsets[i]! })).filter((x) => x.p !== null);
      for (let i = 0; i < n; i += per) {
        const count = Math.min(per, n - i);
        await metaSrc.read(buf, 0, count * R, i * R);
        const view = new DataView(buf.buffer);
        for (let r = 0; r < count; r++) {
          for (const { p, off } of ptrFields) {
            const at = r * R + off + p!;
            view.setBigInt64(at, view.getBigInt64(at, true) + BigInt(dataStart), true);
          }
        }
        await this.fh.write(buf, 0, count * R, M0 + i * R);
      }
    }
    const pageSrc = this.spilled.get('pages');
    if (pageSrc && pages > 0) {
      const buf = new Uint8Array(this.pageSize);
      for (let p = 0; p < pages; p++) {
        const { bytesRead } = await pageSrc.read(buf, 0, this.pageSize, p * this.pageSize);
        await this.fh.write(buf, 0, bytesRead, dataStart + p * this.pageSize);
      }
    }
  }

  /** Removes spill files (on success and on failure). */
  async cleanup(): Promise<void> {
    await this.pageWrites.catch(() => undefined);
    for (const [kind, h] of this.spilled) {
      await h.close().catch(() => undefined);
      await unlink(`${this.tmpPath}.${kind}`).catch(() => undefined);
    }
    this.spilled.clear();
  }
}

export type { Allocation, EncodedValue };

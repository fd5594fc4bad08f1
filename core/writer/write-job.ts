import type { FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { WriteReport } from '../api/build-report.js';
import type { WriterTimings } from '../api/writer-timings.js';
import { findFieldType, registeredFieldModules } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import { encodeAllocation } from '../format/alloc-table.js';
import { ALLOC_ENTRY_SIZE, FORMAT_VERSION } from '../format/constants.js';
import { encodeDescriptor } from '../format/descriptor.js';
import { BetonEncodeError } from '../format/errors.js';
import { encodeHeader } from '../format/header.js';
import { recordLayout, type RecordLayout } from '../format/record-layout.js';
import { regions } from '../format/regions.js';
import { EncodePool } from './encode-pool.js';
import { encodeSample } from './encode-sample.js';
import { PageAllocator } from './page-allocator.js';
import { PageWriter } from './page-writer.js';
import { RateWindow } from './rate-window.js';
import { RecordSink } from './record-sink.js';
import { failedOutcome, type SampleOutcome } from './sample-outcome.js';
import { SamplePlacement } from './sample-placement.js';
import { timingProbe, type TimingProbe } from './timing-probe.js';
import type { DatasetWriterOptions, SampleSource } from './write-options.js';
import { WriteLayout } from './write-layout.js';
import type { OutputFile } from './output-file.js';
import { StreamedFile } from './streamed-file.js';
import { WriteTally } from './write-tally.js';

/** Page writes that may wait before the encoders are held back (each holds a page buffer). */
const PAGE_BACKLOG = 4;

/**
 * One write, wired together: samples are encoded (on this thread or in the pool), placed in
 * source order (sample-placement.ts), their pages written double-buffered (page-writer.ts)
 * where the layout says (write-layout.ts: final offsets, or spill files relocated at the
 * end), then the header, field table and allocation table finish the file.
 */
export class WriteJob {
  private readonly records: RecordLayout;
  private readonly layout: WriteLayout;
  private readonly allocator: PageAllocator;
  private readonly meta: RecordSink;
  private readonly allocs: RecordSink;
  private readonly pages: PageWriter;
  private readonly tally: WriteTally;
  private readonly placement: SamplePlacement;
  private readonly probe: TimingProbe;
  private readonly rateWindow = new RateWindow();
  /** The output: the local file, or the local file with its middle streamed (opts.stream). */
  private readonly out: OutputFile;

  constructor(
    private readonly fields: NamedField[],
    private readonly pageSize: number,
    private readonly capacity: number | null,
    fh: FileHandle,
    tmpPath: string,
    private readonly opts: DatasetWriterOptions,
    private readonly t0: number,
  ) {
    this.records = recordLayout(fields.map((f) => f.field.metadata));
    // Streamed: the head (everything before the first page, written last, and enough pages
    // for a 5 MiB part) stays local; pages after it stream out as written. With an unknown
    // count the first page's offset is known only at the end: nothing streams until then.
    const D0 = capacity === null ? null : regions(fields.length, capacity, this.records.size, pageSize).dataStart;
    this.out = opts.stream
      ? new StreamedFile(fh, opts.stream, D0 === null ? Number.POSITIVE_INFINITY : Math.max(D0, opts.stream.headBytes))
      : fh;
    this.layout = new WriteLayout(this.out, tmpPath, fields, this.records, pageSize, capacity);
    this.meta = new RecordSink(() => this.layout.metadataFile(), this.layout.metadataStart, this.records.size);
    this.allocs = new RecordSink(() => this.layout.allocFile(), 0, ALLOC_ENTRY_SIZE, 1 << 20);
    // Near the end of a write of known size (7/8 placed), flush the pages so far once.
    const syncEarly = capacity === null ? null : () => this.meta.count * 8 >= capacity * 7;
    this.pages = new PageWriter(pageSize, () => this.layout.pagesFile(), this.layout.dataStart, syncEarly);
    this.probe = timingProbe(opts.timings ?? false);
    this.allocator = new PageAllocator(
      pageSize,
      (n, bytes) => {
        const t = this.probe.start();
        const next = this.pages.write(n, bytes);
        this.probe.stop('pageWriteMs', t);
        return next;
      },
      (a) => encodeAllocation(a, this.allocs.next(), 0),
    );
    this.tally = new WriteTally(fields);
    this.placement = new SamplePlacement({
      fields,
      records: this.records,
      allocator: this.allocator,
      metadata: this.meta,
      tally: this.tally,
      dataStart: this.layout.dataStart,
      capacity,
      onError: opts.onError ?? 'fail',
    });
  }

  /** The write's account (opts.timings), or null. */
  timings(wallMs: number, finishMs: number): WriterTimings | null {
    return this.probe.report(wallMs, finishMs);
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
        await this.pages.backlog(PAGE_BACKLOG);
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
        this.placement.place(i, outcome);
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
          const t = this.probe.start();
          outcomes.forEach((o, k) => this.placement.place(start + k, o));
          this.probe.stop('placeMs', t);
          this.progress();
        },
        signal,
        this.capacity,
        () => this.pages.backlog(PAGE_BACKLOG),
      );
    } finally {
      this.probe.setWorkers(pool.timings.values());
      await pool.close();
    }
  }

  private progress(): void {
    const cb = this.opts.onProgress;
    if (!cb) return;
    const elapsedMs = performance.now() - this.t0;
    const handled = this.placement.handled;
    const rate = handled / Math.max(elapsedMs / 1000, 1e-9);
    cb({
      done: handled,
      written: this.placement.written,
      skipped: this.placement.skipped.length,
      total: this.capacity,
      elapsedMs,
      samplesPerSec: rate,
      recentSamplesPerSec: this.rateWindow.add(elapsedMs, handled),
      etaMs: this.capacity !== null && rate > 0 ? ((this.capacity - handled) / rate) * 1000 : null,
      bytesWritten: this.pages.bytesWritten,
    });
  }

  async finish(): Promise<Omit<WriteReport, 'path' | 'elapsedMs' | 'samplesPerSec'>> {
    const n = this.meta.count;
    const handled = this.placement.handled;
    if (this.capacity !== null && handled !== this.capacity) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded ${handled} samples but announced ${this.capacity}`);
    }
    this.allocator.finish();
    await this.pages.flushed();
    await this.meta.close();
    await this.allocs.close();
    const F = this.fields.length;
    const reg = regions(F, n, this.records.size, this.pageSize);
    const pages = this.allocator.pagesUsed;
    const dataStart = await this.layout.settle(n, pages);
    // Padding before the first page and each page's zero tail are holes the OS fills with zeros.
    const allocTablePtr = pages > 0 ? dataStart + pages * this.pageSize : reg.metadataEnd;
    let pos = 24;
    for (const { name, field } of this.fields) {
      const d = encodeDescriptor({ typeId: field.typeId, name, arguments: field.encodeArguments() });
      await this.out.write(d, 0, d.byteLength, pos);
      pos += d.byteLength;
    }
    await this.out.truncate(allocTablePtr);
    this.out.markTail?.(allocTablePtr);
    const tableBytes = await this.layout.appendAllocTable(allocTablePtr, this.allocs.count, dataStart);
    const header = encodeHeader({ version: FORMAT_VERSION, numFields: F, pageSize: this.pageSize, numSamples: n, allocTablePtr });
    await this.out.write(header, 0, header.byteLength, 0);
    const { heapBytes, imageModes, sourceBytes } = this.tally.report();
    return {
      numSamples: n,
      skipped: this.placement.skipped,
      pages,
      pageSize: this.pageSize,
      fileSize: allocTablePtr + tableBytes,
      heapBytes,
      imageModes,
      sourceBytes,
    };
  }

  /** Removes spill files (on success and on failure). */
  async cleanup(): Promise<void> {
    await this.pages.settled();
    await this.layout.cleanup();
  }
}

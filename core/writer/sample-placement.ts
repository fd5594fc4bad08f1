import type { NamedField } from '../fields/schema.js';
import { BetonEncodeError } from '../format/errors.js';
import type { RecordLayout } from '../format/record-layout.js';
import type { PageAllocator } from './page-allocator.js';
import type { RecordSink } from './record-sink.js';
import type { SampleOutcome, SkippedSample } from './sample-outcome.js';
import type { WriteTally } from './write-tally.js';

export interface PlacementParts {
  fields: readonly NamedField[];
  records: RecordLayout;
  /** Puts heap objects into pages (FFCV's order and quirks). */
  allocator: PageAllocator;
  /** The metadata table, one record per written sample. */
  metadata: RecordSink;
  tally: WriteTally;
  /** Added to the allocator's pointers: absolute D0, or 0 while they stay relative (spill mode). */
  dataStart: number;
  /** The sample count the source announced, or null. */
  capacity: number | null;
  onError: 'fail' | 'skip';
}

/**
 * Places encoded samples in source order: their heap objects into pages, their metadata
 * record (heap pointers patched in) into the table. A failed sample stops the write, or
 * under 'skip' is left out and remembered for the report.
 */
export class SamplePlacement {
  /** Source items handled so far (written + skipped). */
  handled = 0;
  readonly skipped: SkippedSample[] = [];

  constructor(private readonly p: PlacementParts) {}

  /** Samples written so far. */
  get written(): number {
    return this.p.metadata.count;
  }

  /** Places source item `index` (or records why it was skipped). Called in source order. */
  place(index: number, outcome: SampleOutcome): void {
    this.handled++;
    if (!outcome.ok) {
      if (this.p.onError !== 'skip') {
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
    const { fields, records, allocator, metadata, tally, dataStart, capacity } = this.p;
    const encoded = outcome.values;
    const k = metadata.count;
    if (capacity !== null && k >= capacity) {
      throw new BetonEncodeError('BAD_OPTIONS', `the source yielded more than the ${capacity} samples it announced`);
    }
    const ptrs = allocator.placeSample(
      k,
      encoded.map((e) => e.heap),
    );
    const rec = metadata.next();
    const view = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
    for (let f = 0; f < encoded.length; f++) {
      const e = encoded[f]!;
      const field = fields[f]!.field;
      const off = records.offsets[f]!;
      rec.set(e.meta, off);
      const ptr = ptrs[f];
      if (field.pointerOffset !== null && ptr !== null && ptr !== undefined) {
        view.setBigInt64(off + field.pointerOffset, BigInt(ptr + dataStart), true);
      }
      tally.add(f, e);
    }
  }
}

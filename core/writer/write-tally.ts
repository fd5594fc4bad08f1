import type { WriteReport } from '../api/build-report.js';
import type { EncodedValue, Field } from '../fields/field.js';
import type { NamedField } from '../fields/schema.js';
import { setOwn } from '../format/own-keys.js';

type ModeCounts = WriteReport['imageModes'][string];

/**
 * What the report counts of the samples placed: heap bytes per field, source bytes, and
 * for fields that store images (those with `imageMode`) how each sample was stored. The
 * field reads its own metadata; the tally never knows a byte layout.
 */
export class WriteTally {
  private readonly heapBytes: number[];
  private readonly imageFields: Array<Field | null>;
  private readonly imageModes: Array<ModeCounts | null>;
  private sourceBytes = 0;

  constructor(private readonly fields: readonly NamedField[]) {
    this.heapBytes = fields.map(() => 0);
    this.imageFields = fields.map(({ field }) => (field.imageMode ? field : null));
    this.imageModes = this.imageFields.map((f) => (f ? { raw: 0, jpg: 0, passThrough: 0 } : null));
  }

  /** Field `f`'s value of one placed sample. */
  add(f: number, e: EncodedValue): void {
    if (e.heap) this.heapBytes[f]! += e.heap.byteLength;
    if (e.sourceBytes) this.sourceBytes += e.sourceBytes;
    const modes = this.imageModes[f];
    if (modes) {
      modes[this.imageFields[f]!.imageMode!(new DataView(e.meta.buffer, e.meta.byteOffset, e.meta.byteLength))]++;
      if (e.passThrough) modes.passThrough++;
    }
  }

  report(): Pick<WriteReport, 'heapBytes' | 'imageModes' | 'sourceBytes'> {
    const heapBytes: Record<string, number> = {};
    const imageModes: WriteReport['imageModes'] = {};
    this.fields.forEach(({ name }, f) => {
      setOwn(heapBytes, name, this.heapBytes[f]!);
      const m = this.imageModes[f];
      if (m) setOwn(imageModes, name, m);
    });
    return { heapBytes, imageModes, sourceBytes: this.sourceBytes };
  }
}

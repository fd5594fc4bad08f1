import { BetonFormatError } from '../format/errors.js';
import type { Header } from '../format/header.js';
import type { RecordLayout } from '../format/record-layout.js';
import type { Regions } from '../format/regions.js';
import type { NamedField } from '../fields/schema.js';
import type { AllocIndex } from './alloc-index.js';

/** What the check reads of an opened file: its structure and where each sample's heap objects are. */
export interface PointerView {
  readonly path: string;
  readonly header: Header;
  readonly regions: Regions;
  readonly recordLayout: RecordLayout;
  readonly fields: readonly NamedField[];
  readonly numSamples: number;
  readonly pageSize: number;
  heapRef(i: number, f: number): { ptr: number; size: number } | null;
}

/**
 * Every heap object of every sample lies inside the data pages and within one page; no
 * two objects overlap; and, for built-in fields, the allocation table agrees with the
 * metadata: an entry starts at the pointer, belongs to that sample and has the size the
 * metadata implies (bytes/JSON size, ndarray shape, raw image w·h·3). FFCV writes both
 * from the same allocation, so a mismatch means a shifted record layout (num_fields or a
 * field type edited), an edited pointer/size/width/height, or a corrupt table.
 */
export function checkPointers(file: PointerView, allocIndex: AllocIndex): void {
  const T = file.header.allocTablePtr;
  const D0 = file.regions.dataStart;
  const overlap = allocIndex.firstOverlap();
  if (overlap) {
    const [ptr, size, next] = overlap;
    throw new BetonFormatError(
      'BAD_ALLOC_TABLE',
      `${file.path}: the allocation table has an object at ${ptr} of ${size} bytes overlapping the next one at ${next}; the table is corrupt`,
      { file: file.path, offset: T },
    );
  }
  // Metadata-only fields (int, float) own no object: a tabular file skips the whole walk.
  const heapFields = file.fields.flatMap((d, f) => (d.field.pointerOffset === null ? [] : [f]));
  if (heapFields.length === 0) return;
  const pageOf = (p: number): number => Math.floor(p / file.pageSize);
  for (let i = 0; i < file.numSamples; i++) {
    for (const f of heapFields) {
      const ref = file.heapRef(i, f);
      if (!ref || ref.size === 0) continue;
      const bad = (why: string): never => {
        throw new BetonFormatError('BAD_POINTER', `${file.path}: sample ${i}, field "${file.fields[f]!.name}": ${why}`, {
          file: file.path,
          sample: i,
          offset: file.regions.metadata.offset + i * file.recordLayout.size + file.recordLayout.offsets[f]!,
        });
      };
      if (ref.ptr < D0 || ref.ptr + ref.size > T || pageOf(ref.ptr) !== pageOf(ref.ptr + ref.size - 1)) {
        bad(`object at ${ref.ptr} (${ref.size} bytes) is outside the data pages (${D0}..${T}) or crosses a page; the file is corrupt`);
      }
      // A custom field may point into an object, or own several: only built-ins are held to it.
      if (file.fields[f]!.field.typeId === 255) continue;
      const k = allocIndex.indexOf(ref.ptr);
      if (k < 0) bad(`points at byte ${ref.ptr}, where no allocation starts; the metadata or the allocation table is corrupt`);
      if (allocIndex.ownerOf(k) !== i)
        bad(
          `the object at ${ref.ptr} belongs to sample ${allocIndex.ownerOf(k)} in the allocation table; num_fields, a field type or the metadata is wrong`,
        );
      if (allocIndex.sizeOf(k) !== ref.size)
        bad(
          `the metadata implies an object of ${ref.size} bytes at ${ref.ptr}, the allocation table says ${allocIndex.sizeOf(k)}; the metadata (size, shape, width/height) or the table is corrupt`,
        );
    }
  }
}

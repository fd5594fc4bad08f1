import { BetonEncodeError } from '../format/errors.js';
import type { Allocation } from '../format/alloc-table.js';

/**
 * Places heap objects into pages exactly as FFCV's single-worker allocator does, so our
 * files match FFCV's byte for byte:
 * - objects are packed back to back, no alignment;
 * - when an object does not fit, the current page is flushed (full length, zero tail)
 *   and the next page starts empty;
 * - a sample never straddles pages: if it already had objects in the old page, it is
 *   placed again from its first object on the fresh page, and the bytes it had copied
 *   into the old page stay there, orphaned (FFCV copies as it allocates);
 * - a zero-size object takes no space and needs no page (FFCV quirk: with no page yet,
 *   its pointer is computed for page −1).
 *
 * A page is handed over up to its last used byte: its zero tail is never written (the file
 * is new, so the gap reads as zeros, as FFCV's full-length page writes leave it). So a
 * page buffer needs no clearing between pages — bytes past the fill are never handed over.
 *
 * Pointers here are relative to the start of the data region (D0); the writer adds D0.
 */
export class PageAllocator {
  private page: Uint8Array;
  private pageNumber = -1;
  private fill = 0;
  private hasPage = false;
  /** Allocations committed so far (the allocation table's length). */
  allocationCount = 0;

  constructor(
    readonly pageSize: number,
    /**
     * Receives each page, in page order, up to its last used byte (a view of the page
     * buffer). It must copy or consume the bytes synchronously, or return a pageSize buffer
     * for the allocator to fill next: the flushed buffer then belongs to the callback
     * (written without a copy).
     */
    private readonly flushPage: (pageNumber: number, bytes: Uint8Array) => Uint8Array | void,
    /** Receives each committed allocation, in allocation-table order. */
    private readonly onAllocation: (a: Allocation) => void,
  ) {
    this.page = new Uint8Array(pageSize);
  }

  get pagesUsed(): number {
    return this.pageNumber + 1;
  }

  /**
   * Places one sample's heap objects (in field order; nulls skipped) and returns their
   * relative pointers (null where a field has no heap object).
   */
  placeSample(sampleId: number, objects: ReadonlyArray<Uint8Array | null>): Array<number | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const ptrs = this.tryPlace(sampleId, objects);
      if (ptrs) return ptrs;
    }
    const total = objects.reduce((s, o) => s + (o?.byteLength ?? 0), 0);
    throw new BetonEncodeError(
      'SAMPLE_TOO_LARGE',
      `sample ${sampleId} needs ${total} bytes of heap data, more than one page (${this.pageSize} bytes); use a larger page size`,
      { sample: sampleId },
    );
  }

  private tryPlace(sampleId: number, objects: ReadonlyArray<Uint8Array | null>): Array<number | null> | null {
    const ptrs: Array<number | null> = [];
    const placed: Allocation[] = [];
    for (const obj of objects) {
      if (!obj) {
        ptrs.push(null);
        continue;
      }
      const size = obj.byteLength;
      if (size > this.pageSize) {
        throw new BetonEncodeError(
          'OBJECT_TOO_LARGE',
          `sample ${sampleId}: an object of ${size} bytes is larger than the page size ${this.pageSize}; use a larger page size`,
          { sample: sampleId },
        );
      }
      const free = this.hasPage ? this.pageSize - this.fill : 0;
      if (size > free) {
        this.nextPage();
        // FFCV drops the sample's entries from the old page and encodes it again.
        if (placed.length > 0) return null;
      }
      const ptr = this.pageNumber * this.pageSize + this.fill;
      if (size > 0) this.page.set(obj, this.fill);
      this.fill += size;
      placed.push({ sampleId, ptr, size });
      ptrs.push(ptr);
    }
    for (const a of placed) this.onAllocation(a);
    this.allocationCount += placed.length;
    return ptrs;
  }

  private nextPage(): void {
    if (this.hasPage) {
      const next = this.flushPage(this.pageNumber, this.page.subarray(0, this.fill));
      if (next) this.page = next;
    }
    this.pageNumber++;
    this.fill = 0;
    this.hasPage = true;
  }

  /** Flushes the last, partly filled page. */
  finish(): void {
    if (this.hasPage) this.flushPage(this.pageNumber, this.page.subarray(0, this.fill));
    this.hasPage = false;
  }
}

import type { Allocation } from '../format/alloc-table.js';

/**
 * ptr → size lookup over the allocation table. FFCV binary-searches a sorted copy and may
 * return either entry for a duplicated pointer (a zero-size object shares its pointer
 * with the next one); we keep the largest size, which is the real object.
 */
export class AllocIndex {
  private readonly ptrs: Float64Array;
  private readonly sizes: Float64Array;

  constructor(entries: readonly Allocation[]) {
    const order = entries.map((_, i) => i).sort((a, b) => entries[a]!.ptr - entries[b]!.ptr || entries[b]!.size - entries[a]!.size);
    const ptrs: number[] = [];
    const sizes: number[] = [];
    for (const i of order) {
      const e = entries[i]!;
      if (ptrs.length && ptrs[ptrs.length - 1] === e.ptr) continue;
      ptrs.push(e.ptr);
      sizes.push(e.size);
    }
    this.ptrs = Float64Array.from(ptrs);
    this.sizes = Float64Array.from(sizes);
  }

  get size(): number {
    return this.ptrs.length;
  }

  /** Size of the object at `ptr`, or null if no allocation starts there. */
  sizeAt(ptr: number): number | null {
    let lo = 0;
    let hi = this.ptrs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ptrs[mid]! < ptr) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.ptrs.length && this.ptrs[lo] === ptr ? this.sizes[lo]! : null;
  }
}

import type { Allocation } from '../format/alloc-table.js';

/**
 * The allocation table held as three typed columns (not one object per entry: a 5M-row
 * file would spend ~280 MB of heap on objects).
 */
export class AllocationTable implements Iterable<Allocation> {
  constructor(
    readonly sampleIds: Float64Array,
    readonly ptrs: Float64Array,
    readonly sizes: Float64Array,
  ) {}

  get length(): number {
    return this.ptrs.length;
  }

  get(i: number): Allocation {
    return { sampleId: this.sampleIds[i]!, ptr: this.ptrs[i]!, size: this.sizes[i]! };
  }

  *[Symbol.iterator](): Iterator<Allocation> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}

/**
 * ptr → size lookup over the allocation table. FFCV binary-searches a sorted copy and may
 * return either entry for a duplicated pointer (a zero-size object shares its pointer
 * with the next one); we keep the largest size, which is the real object.
 */
export class AllocIndex {
  private readonly ptrs: Float64Array;
  private readonly sizes: Float64Array;

  constructor(t: AllocationTable) {
    const n = t.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => t.ptrs[a]! - t.ptrs[b]! || t.sizes[b]! - t.sizes[a]!);
    const ptrs = new Float64Array(n);
    const sizes = new Float64Array(n);
    let k = 0;
    for (let j = 0; j < n; j++) {
      const i = order[j]!;
      const p = t.ptrs[i]!;
      if (k > 0 && ptrs[k - 1] === p) continue;
      ptrs[k] = p;
      sizes[k] = t.sizes[i]!;
      k++;
    }
    this.ptrs = ptrs.subarray(0, k);
    this.sizes = sizes.subarray(0, k);
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

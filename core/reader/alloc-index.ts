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
  /** The sample owning each kept entry (the reader checks it against the metadata). */
  private readonly owners: Float64Array;

  constructor(t: AllocationTable) {
    const n = t.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => t.ptrs[a]! - t.ptrs[b]! || t.sizes[b]! - t.sizes[a]!);
    const ptrs = new Float64Array(n);
    const sizes = new Float64Array(n);
    const owners = new Float64Array(n);
    let k = 0;
    for (let j = 0; j < n; j++) {
      const i = order[j]!;
      const p = t.ptrs[i]!;
      if (k > 0 && ptrs[k - 1] === p) continue;
      ptrs[k] = p;
      sizes[k] = t.sizes[i]!;
      owners[k] = t.sampleIds[i]!;
      k++;
    }
    this.ptrs = ptrs.subarray(0, k);
    this.sizes = sizes.subarray(0, k);
    this.owners = owners.subarray(0, k);
  }

  /**
   * The first object (by pointer) that overlaps the next one, as [ptr, size, nextPtr], or
   * null. FFCV packs objects back to back, so no two objects of a valid file overlap.
   */
  firstOverlap(): [number, number, number] | null {
    // Empty objects take no bytes (their pointer is where the next object starts).
    let last = -1;
    for (let k = 0; k < this.ptrs.length; k++) {
      if (this.sizes[k] === 0) continue;
      if (last >= 0 && this.ptrs[last]! + this.sizes[last]! > this.ptrs[k]!) return [this.ptrs[last]!, this.sizes[last]!, this.ptrs[k]!];
      last = k;
    }
    return null;
  }

  /** Index of the entry at `ptr` (the largest when duplicated), or -1; see sizeOf / ownerOf. */
  indexOf(ptr: number): number {
    return this.find(ptr);
  }

  sizeOf(k: number): number {
    return this.sizes[k]!;
  }

  /** The sample that owns entry `k`. */
  ownerOf(k: number): number {
    return this.owners[k]!;
  }

  get size(): number {
    return this.ptrs.length;
  }

  /** Size of the object at `ptr`, or null if no allocation starts there. */
  sizeAt(ptr: number): number | null {
    const k = this.find(ptr);
    return k < 0 ? null : this.sizes[k]!;
  }

  private find(ptr: number): number {
    let lo = 0;
    let hi = this.ptrs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ptrs[mid]! < ptr) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.ptrs.length && this.ptrs[lo] === ptr ? lo : -1;
  }
}

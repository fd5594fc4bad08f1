import { argumentError } from './arguments.js';
import { loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/** One output of a gather: `width` bytes at `offset` of each record, packed rows in ring slots of `slotBytes`. */
export interface GatherColumn {
  offset: number;
  width: number;
  /** The output's ring (shared memory), slot s at s · slotBytes. */
  ring: Uint8Array;
  slotBytes: number;
}

/**
 * A tabular epoch's gather (native/src/gather_plan.cc): the record table and the ring slots
 * are handed to the addon once, the epoch's order once per epoch, and each batch is one
 * call with numbers only — looking up typed arrays through Node-API on every batch cost as
 * much as the copies of a small batch.
 *
 * The addon keeps pointers into these arrays; this object keeps the arrays themselves
 * alive, and refuses to run once one was detached (a transferred ArrayBuffer), so the
 * pointers never outlive their memory.
 */
export class GatherPlan {
  private readonly handle: unknown;
  private order: Uint32Array = new Uint32Array(0);
  private orderLength = 0;
  private readonly tableLength: number;

  constructor(
    private readonly table: Uint8Array,
    stride: number,
    private readonly columns: readonly GatherColumn[],
  ) {
    if (!Number.isInteger(stride) || stride < 1) throw argumentError(`GatherPlan: bad stride ${stride}`);
    if (columns.length === 0 || columns.length > 64) throw argumentError(`GatherPlan: ${columns.length} columns (1–64)`);
    for (const c of columns) {
      if (![c.offset, c.width, c.slotBytes].every((v) => Number.isInteger(v) && v >= 0) || c.width < 1 || c.offset + c.width > stride)
        throw argumentError(`GatherPlan: column at ${c.offset} (${c.width} bytes) lies outside a ${stride}-byte record`);
    }
    const spec = new Float64Array(columns.flatMap((c) => [c.offset, c.width, c.slotBytes]));
    this.tableLength = table.length;
    this.handle = callAddon(() =>
      loadNative().gatherPlanCreate(
        table,
        stride,
        spec,
        columns.map((c) => c.ring),
      ),
    );
  }

  /** The ids later runs read, by position (`run(start, …)`). */
  setOrder(order: Uint32Array): void {
    callAddon(() => loadNative().gatherPlanOrder(this.handle, order));
    this.order = order;
    this.orderLength = order.length;
  }

  /**
   * Rows order[start, start + count) into ring slot `slot` of every column. Returns −1, or
   * the position in the order of the first id outside the table (nothing after it copied).
   */
  run(start: number, count: number, slot: number): number {
    // A detached ArrayBuffer reads as length 0: the addon's pointers would dangle.
    if (this.order.length !== this.orderLength || this.table.length !== this.tableLength || this.detachedRing())
      throw argumentError('GatherPlan: an array it reads or writes was detached (transferred); open the loader again');
    return callAddon(() => loadNative().gatherPlanRun(this.handle, start, count, slot));
  }

  private detachedRing(): boolean {
    for (const c of this.columns) if (c.ring.length === 0) return true;
    return false;
  }
}

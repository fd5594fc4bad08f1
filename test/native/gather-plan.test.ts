/**
 * GatherPlan (native/src/gather_plan.cc): the inline tabular gather, set up once and run per
 * batch with numbers. Every dispatch — equal widths of 4 or 8 bytes in one pass for 1–4
 * columns, one pass per column for more or for mixed widths — must give what a plain JS copy
 * gives, into the right slot and nowhere else; ids outside the table, rows outside the order
 * or the ring, and arrays detached under it are refused.
 */
import { describe, expect, it } from 'vitest';
import { GatherPlan, type GatherColumn } from '../../core/native/gather-plan.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const rand = mulberry32(131);
const records = 3000;
const stride = 48;
const table = Uint8Array.from({ length: records * stride }, () => Math.floor(rand() * 256));
const slots = 3;
const rows = 64;

function columnsOf(spec: Array<[offset: number, width: number]>): GatherColumn[] {
  return spec.map(([offset, width]) => ({
    offset,
    width,
    ring: new Uint8Array(new SharedArrayBuffer(slots * rows * width)).fill(0xee),
    slotBytes: rows * width,
  }));
}

/** What slot `slot` of each column must hold after gathering `ids` (the rest of the ring untouched). */
function expected(cols: GatherColumn[], ids: Uint32Array, slot: number): Uint8Array[] {
  return cols.map((c) => {
    const want = new Uint8Array(c.ring.length).fill(0xee);
    ids.forEach((id, k) =>
      want.set(table.subarray(id * stride + c.offset, id * stride + c.offset + c.width), slot * c.slotBytes + k * c.width),
    );
    return want;
  });
}

describe('GatherPlan', () => {
  const layouts: Array<Array<[number, number]>> = [
    [[0, 8]],
    [
      [0, 8],
      [8, 8],
    ], // an int and a float field: the common case
    [
      [16, 8],
      [0, 8],
      [40, 8],
    ],
    [
      [0, 4],
      [4, 4],
      [8, 4],
      [44, 4],
    ],
    [
      [0, 8],
      [8, 8],
      [16, 8],
      [24, 8],
      [32, 8],
    ], // more than 4: one pass per column
    [
      [0, 1],
      [1, 2],
      [4, 16],
      [20, 3],
      [24, 8],
    ], // mixed widths
    [[5, 13]],
  ];

  it('copies every layout as a plain copy does, into its slot only', () => {
    for (const spec of layouts) {
      const cols = columnsOf(spec);
      const plan = new GatherPlan(table, stride, cols);
      const order = Uint32Array.from({ length: 500 }, (_, k) => (k === 0 ? records - 1 : k === 1 ? 0 : Math.floor(rand() * records)));
      plan.setOrder(order);
      for (const [start, n, slot] of [
        [0, 64, 1],
        [64, 9, 2],
        [490, 10, 0],
        [3, 0, 1],
      ] as const) {
        for (const c of cols) c.ring.fill(0xee);
        expect(plan.run(start, n, slot)).toBe(-1);
        const want = expected(cols, order.subarray(start, start + n), slot);
        cols.forEach((c, i) =>
          expect(Buffer.from(c.ring).equals(Buffer.from(want[i]!)), `${JSON.stringify(spec)} rows ${start}+${n} slot ${slot}`).toBe(true),
        );
      }
    }
  });

  it('stops at an id outside the table and says where', () => {
    const cols = columnsOf([
      [0, 8],
      [8, 8],
    ]);
    const plan = new GatherPlan(table, stride, cols);
    plan.setOrder(Uint32Array.from([1, 2, records, 4]));
    expect(plan.run(0, 4, 0)).toBe(2);
    expect(plan.run(0, 2, 0)).toBe(-1);
  });

  it('refuses rows outside the order or the ring, and columns outside the record', () => {
    const cols = columnsOf([[0, 8]]);
    const plan = new GatherPlan(table, stride, cols);
    plan.setOrder(new Uint32Array(100));
    expect(() => plan.run(90, 11, 0)).toThrow(/outside the order/);
    expect(() => plan.run(0, rows + 1, 0)).toThrow(/outside the ring/);
    expect(() => plan.run(0, 1, slots)).toThrow(/outside the ring/);
    expect(() => plan.run(0.5, 1, 0)).toThrow(/outside the order/);
    expect(() => new GatherPlan(table, stride, columnsOf([[44, 8]]))).toThrow(/outside a 48-byte record/);
    expect(() => new GatherPlan(table, stride, [])).toThrow(/0 columns/);
  });

  it('refuses to run once an array it points into was detached (transferred)', () => {
    const cols = columnsOf([[0, 8]]);
    const own = table.slice();
    const plan = new GatherPlan(own, stride, cols);
    const order = Uint32Array.from([1, 2, 3]);
    plan.setOrder(order);
    expect(plan.run(0, 3, 0)).toBe(-1);
    structuredClone(order.buffer, { transfer: [order.buffer] });
    expect(() => plan.run(0, 3, 0)).toThrow(/detached/);
    plan.setOrder(Uint32Array.from([1, 2, 3]));
    expect(plan.run(0, 3, 0)).toBe(-1);
    structuredClone(own.buffer, { transfer: [own.buffer] });
    expect(() => plan.run(0, 3, 0)).toThrow(/detached/);
  });
});

/**
 * gatherRecords (native/src/gather.cc): the tabular loader's per-batch copy. Its fixed-width
 * fast paths (1, 2, 4, 8, 16 bytes) and the general one must all give what a plain JS copy
 * gives, at any field offset, with repeated and boundary ids; a bad id or destination is a
 * RangeError before anything is written.
 */
import { describe, expect, it } from 'vitest';
import { gatherRecords } from '../../core/native/gather-records.js';
import { mulberry32 } from '../helpers/mulberry32.js';

function reference(
  src: Uint8Array,
  stride: number,
  offset: number,
  width: number,
  ids: Uint32Array,
  dst: Uint8Array,
  dstStart: number,
): void {
  ids.forEach((id, k) => dst.set(src.subarray(id * stride + offset, id * stride + offset + width), dstStart + k * width));
}

describe('gatherRecords', () => {
  const rand = mulberry32(31);
  const records = 5000;
  const stride = 40;
  const src = Uint8Array.from({ length: records * stride }, () => Math.floor(rand() * 256));

  it('copies rows of every width as a plain copy does (fast paths and the general one)', () => {
    for (const width of [0, 1, 2, 3, 4, 5, 8, 12, 16, 24, 40]) {
      for (const offset of [0, stride - width, Math.floor((stride - width) / 2)]) {
        for (const n of [0, 1, 7, 8, 9, 256]) {
          // Random ids with repeats, and the table's first and last rows.
          const ids = Uint32Array.from({ length: n }, (_, k) => (k === 0 ? records - 1 : k === 1 ? 0 : Math.floor(rand() * records)));
          const dstStart = 3;
          const ours = new Uint8Array(dstStart + n * width + 5).fill(0xee);
          const want = ours.slice();
          gatherRecords(src, stride, offset, width, ids, ours, dstStart);
          reference(src, stride, offset, width, ids, want, dstStart);
          expect(Buffer.from(ours).equals(Buffer.from(want)), `width ${width} offset ${offset} rows ${n}`).toBe(true);
        }
      }
    }
  });

  it('refuses an id past the table or rows past the destination, writing nothing', () => {
    const dst = new Uint8Array(64).fill(7);
    const ids = Uint32Array.from([1, 2, records]);
    expect(() => gatherRecords(src, stride, 0, 8, ids, dst, 0)).toThrow(/id outside the table/);
    expect(dst.every((v) => v === 7)).toBe(true);
    expect(() => gatherRecords(src, stride, 0, 8, Uint32Array.from([1, 2]), dst, 60)).toThrow(/outside the destination/);
    expect(() => gatherRecords(src, stride, 36, 8, Uint32Array.from([1]), dst, 0)).toThrow(/bad layout/);
  });
});

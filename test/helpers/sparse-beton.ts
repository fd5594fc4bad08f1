/**
 * Crafts huge .beton files that cost nothing on disk: the pages of a small file written by
 * our DatasetWriter are moved far out (and optionally onto larger pages), the holes between
 * them left unwritten (a sparse file), every heap pointer in the metadata and the allocation
 * table rebased. The loader tests use it to put objects past 2^32 and 2^33 bytes, and pages
 * of 2^31 bytes, in files of many GiB that are written in milliseconds.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { ALLOC_ENTRY_SIZE } from '../../core/format/constants.js';
import { decodeHeader, encodeHeader } from '../../core/format/header.js';
import { readU64, writeU64 } from '../../core/format/u64.js';
import { Reader } from '../../core/reader/reader.js';

export interface SpreadPlan {
  /** The new page size (a power of two, at least the source's). */
  pageSize: number;
  /** Index of old data page k among the new data pages (strictly increasing in k). */
  place: (k: number) => number;
}

/** Writes `dst`: `src`'s samples with its data pages moved as `plan` says. Returns the new file's size. */
export function spreadPages(src: string, dst: string, plan: SpreadPlan): number {
  const bytes = readFileSync(src);
  const reader = Reader.openSync(src);
  try {
    const h = decodeHeader(bytes, src);
    const oldPs = h.pageSize;
    const ps = plan.pageSize;
    const M0 = reader.regions.metadata.offset;
    const M1 = reader.regions.metadataEnd;
    const D0 = reader.regions.dataStart;
    const newD0 = Math.ceil(M1 / ps) * ps;
    const T = h.allocTablePtr;
    const pages = Math.max(0, (T - D0) / oldPs);
    let last = -1;
    for (let k = 0; k < pages; k++) {
      const p = plan.place(k);
      if (!Number.isInteger(p) || p <= last) throw new Error(`place(${k}) = ${p} is not after place(${k - 1}) = ${last}`);
      last = p;
    }
    const newT = newD0 + (last + 1) * ps;
    const rebase = (ptr: number): number => {
      if (ptr >= T) return newT + (ptr - T);
      const k = Math.floor((ptr - D0) / oldPs);
      return newD0 + plan.place(k) * ps + (ptr - D0 - k * oldPs);
    };

    const head = new Uint8Array(bytes.subarray(0, M1));
    head.set(encodeHeader({ ...h, pageSize: ps, allocTablePtr: newT }), 0);
    const meta = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const size = reader.recordLayout.size;
    reader.fields.forEach(({ field }, f) => {
      for (const o of field.pointerOffsets()) {
        for (let i = 0; i < h.numSamples; i++) {
          const at = M0 + i * size + reader.recordLayout.offsets[f]! + o;
          writeU64(meta, at, rebase(readU64(meta, at)));
        }
      }
    });
    const table = new Uint8Array(bytes.subarray(T));
    const tv = new DataView(table.buffer, table.byteOffset, table.byteLength);
    for (let e = 0; e + ALLOC_ENTRY_SIZE <= table.length; e += ALLOC_ENTRY_SIZE) writeU64(tv, e + 8, rebase(readU64(tv, e + 8)));

    const fd = openSync(dst, 'w');
    try {
      writeSync(fd, head, 0, head.length, 0);
      for (let k = 0; k < pages; k++) writeSync(fd, bytes, D0 + k * oldPs, oldPs, newD0 + plan.place(k) * ps);
      writeSync(fd, table, 0, table.length, newT);
    } finally {
      closeSync(fd);
    }
    return newT + table.length;
  } finally {
    reader.close();
  }
}

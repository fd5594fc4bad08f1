import { readElement } from '../../format/dtype.js';
import { BetonEncodeError } from '../../format/errors.js';
import type { NDArray } from '../../fields/ndarray-field.js';
import type { ByteReader } from './byte-reader.js';
import { NPY_PRELUDE, npyHeaderLength, parseNpyHeader, type NpyHeader } from './npy-header.js';
import type { ColumnType } from '../common/table-reader.js';

/** Rows are read in batches of about this many bytes (at least one row). */
const BATCH_BYTES = 1 << 20;

/** Reads and parses the header at the reader's position, leaving it at the first row. */
export async function readNpyHeader(reader: ByteReader, where: string): Promise<NpyHeader> {
  const prelude = await reader.read(NPY_PRELUDE);
  const total = npyHeaderLength(prelude, where);
  const rest = await reader.read(total - prelude.byteLength);
  const all = new Uint8Array(prelude.byteLength + rest.byteLength);
  all.set(prelude);
  all.set(rest, prelude.byteLength);
  return parseNpyHeader(all, where);
}

/**
 * The column type a .npy array declares: 1-D numbers become int/float fields (bool as
 * int, complex as a 1-element ndarray since no scalar field holds it), N-D arrays an
 * ndarray of shape[1:] in the file's own dtype, strings json (unicode) or bytes.
 */
export function npyColumnType(h: NpyHeader, where: string): ColumnType {
  const el = h.element;
  if (el.kind !== 'numeric') {
    if (h.shape.length > 1)
      throw new BetonEncodeError('BAD_OPTIONS', `${where}: string arrays with more than one dimension are not supported`, {
        source: where,
      });
    return el.kind === 'unicode' ? { kind: 'string' } : { kind: 'bytes' };
  }
  const rowShape = h.shape.slice(1);
  if (rowShape.some((d) => d === 0)) {
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `${where}: rows of shape (${rowShape.join(', ')}) are empty; FFCV cannot store zero-size arrays`,
      { source: where },
    );
  }
  if (rowShape.length === 0) {
    if (el.dtype.kind === 'f') return { kind: 'float' };
    if (el.dtype.kind !== 'c') return { kind: 'int' };
    return { kind: 'ndarray', dtype: el.dtype.str, shape: [1] };
  }
  return { kind: 'ndarray', dtype: el.dtype.str, shape: rowShape };
}

/** One row's value: a scalar for 1-D numeric arrays, else an NDArray or a string/bytes. */
export function decodeNpyRow(h: NpyHeader, batch: Uint8Array, offset: number): unknown {
  const el = h.element;
  const bytes = batch.subarray(offset, offset + h.rowBytes);
  if (el.kind === 'bytes') {
    let end = bytes.byteLength;
    while (end > 0 && bytes[end - 1] === 0) end--; // numpy strips trailing NULs
    return bytes.slice(0, end);
  }
  if (el.kind === 'unicode') {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let s = '';
    for (let i = 0; i < bytes.byteLength; i += 4) {
      const cp = v.getUint32(i, el.littleEndian);
      if (cp === 0) break;
      s += String.fromCodePoint(cp);
    }
    return s;
  }
  if (h.shape.length === 1 && el.dtype.kind !== 'c') return readElement(el.dtype, bytes, 0);
  // A copy per row: a view into the batch would drag the whole batch buffer along
  // whenever the sample is cloned to an encoder thread.
  const out: NDArray = { dtype: el.dtype.str, shape: h.shape.length === 1 ? [1] : h.shape.slice(1), bytes: bytes.slice() };
  return out;
}

/**
 * Rows [start, end) of the array whose data begins at the reader's position, read in
 * ~1 MiB batches. Skipping to `start` is a seek for files and stored members.
 */
export async function* npyRows(reader: ByteReader, h: NpyHeader, start: number, end: number, where: string): AsyncGenerator<unknown> {
  const rows = h.shape[0]!;
  const last = Math.min(end, rows);
  if (start >= last) return;
  if (h.rowBytes === 0) {
    for (let i = start; i < last; i++) yield decodeNpyRow(h, new Uint8Array(0), 0);
    return;
  }
  await reader.skip(start * h.rowBytes);
  const perBatch = Math.max(1, Math.floor(BATCH_BYTES / h.rowBytes));
  for (let i = start; i < last;) {
    const n = Math.min(perBatch, last - i);
    const batch = await reader.read(n * h.rowBytes);
    if (batch.byteLength < n * h.rowBytes) {
      const row = i + Math.floor(batch.byteLength / h.rowBytes);
      throw new BetonEncodeError(
        'BAD_OPTIONS',
        `${where}: truncated: the header promises ${rows} rows of ${h.rowBytes} bytes, data ends in row ${row}`,
        { source: where },
      );
    }
    for (let k = 0; k < n; k++) yield decodeNpyRow(h, batch, k * h.rowBytes);
    i += n;
  }
}

import { parseDType, type DType } from '../../format/dtype.js';
import { BetonEncodeError } from '../../format/errors.js';
import { parsePythonLiteral } from './python-literal.js';

/**
 * The .npy header (numpy's format.py): magic `\x93NUMPY`, version 1.0 (u16 header length),
 * 2.0 or 3.0 (u32; 3.0 is UTF-8), then a Python dict literal with `descr`,
 * `fortran_order` and `shape`, padded so the data starts on a 64-byte boundary.
 */
export type NpyElement =
  | { kind: 'numeric'; dtype: DType; itemsize: number }
  /** `|S5`: NUL-padded bytes. */
  | { kind: 'bytes'; itemsize: number }
  /** `<U5`: UTF-32 code points, NUL-padded. */
  | { kind: 'unicode'; littleEndian: boolean; itemsize: number };

export interface NpyHeader {
  version: number;
  /** Where the array data starts, from the start of the .npy stream. */
  dataOffset: number;
  descr: string;
  element: NpyElement;
  shape: number[];
  /** Elements of one row (one index along axis 0). */
  rowElements: number;
  rowBytes: number;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
/** Enough bytes to know the whole header's length. */
export const NPY_PRELUDE = 12;

/** Total header length (prelude + dict) from the first NPY_PRELUDE bytes. */
export function npyHeaderLength(prelude: Uint8Array, where: string): number {
  if (prelude.byteLength < 10 || MAGIC.some((b, i) => prelude[i] !== b)) {
    throw bad(where, 'not a .npy file (no \\x93NUMPY magic)');
  }
  const major = prelude[6]!;
  const v = new DataView(prelude.buffer, prelude.byteOffset, prelude.byteLength);
  if (major === 1) return 10 + v.getUint16(8, true);
  if (major === 2 || major === 3) {
    if (prelude.byteLength < 12) throw bad(where, 'truncated header');
    return 12 + v.getUint32(8, true);
  }
  throw bad(where, `unsupported .npy version ${major}.${prelude[7]} (numpy writes 1.0, 2.0 and 3.0)`);
}

/** Parses the complete header (its first npyHeaderLength() bytes). */
export function parseNpyHeader(bytes: Uint8Array, where: string): NpyHeader {
  const total = npyHeaderLength(bytes, where);
  if (bytes.byteLength < total) throw bad(where, 'truncated header');
  const major = bytes[6]!;
  const start = major === 1 ? 10 : 12;
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, total)).trim();
  let dict;
  try {
    dict = parsePythonLiteral(text);
  } catch (e) {
    throw bad(where, `unreadable header: ${(e as Error).message}`);
  }
  if (!dict || typeof dict !== 'object' || Array.isArray(dict)) throw bad(where, 'the header is not a dict');
  const { descr, fortran_order: fortran, shape } = dict;
  if (Array.isArray(descr))
    throw bad(where, 'structured dtypes (record arrays) are not supported; save each field as its own array (np.savez)');
  if (typeof descr !== 'string') throw bad(where, "the header has no 'descr'");
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
    throw bad(where, "the header has no valid 'shape'");
  }
  const dims = shape as number[];
  if (dims.length === 0) throw bad(where, 'a 0-d array has no rows (axis 0); save it with shape (1,) or more');
  // Fortran and C order coincide for 1-D arrays.
  if (fortran === true && dims.length > 1) {
    throw bad(where, 'Fortran-ordered arrays are not supported; save with np.save(path, np.ascontiguousarray(a))');
  }
  const element = parseElement(descr, where);
  const rowElements = dims.slice(1).reduce((a, b) => a * b, 1);
  return { version: major, dataOffset: total, descr, element, shape: dims, rowElements, rowBytes: rowElements * element.itemsize };
}

function parseElement(descr: string, where: string): NpyElement {
  const s = /^([<>|=]?)([SaU])(\d+)$/.exec(descr);
  if (s) {
    const n = Number(s[3]);
    if (n === 0) throw bad(where, `zero-length string dtype ${descr}`);
    if (s[2] === 'U') return { kind: 'unicode', littleEndian: s[1] !== '>', itemsize: 4 * n };
    return { kind: 'bytes', itemsize: n };
  }
  if (/O/.test(descr))
    throw bad(where, `object arrays (${descr}) hold pickled Python objects and cannot be read; convert to a numeric or string dtype`);
  if (/^[<>|=]?[Mm]8/.test(descr)) throw bad(where, `datetime dtype ${descr} is not supported; convert with a.astype('int64')`);
  try {
    const dtype = parseDType(descr);
    return { kind: 'numeric', dtype, itemsize: dtype.itemsize };
  } catch {
    throw bad(where, `unsupported dtype ${descr}`);
  }
}

function bad(where: string, why: string): BetonEncodeError {
  return new BetonEncodeError('BAD_OPTIONS', `${where}: ${why}`, { source: where });
}

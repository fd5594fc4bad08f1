import { BetonEncodeError } from './errors.js';
import { float16Bits, float16Value } from './float16.js';

/**
 * numpy dtype strings ("typestr") as FFCV writes them in NDArrayField arguments:
 * byte order ('<', '>', '|') + kind + item size, e.g. "<f4", "|u1", ">i4", "<c8".
 */
export interface DType {
  /** The numpy typestr, normalised ("|u1" for one-byte types). */
  str: string;
  order: '<' | '>' | '|';
  kind: 'b' | 'i' | 'u' | 'f' | 'c';
  itemsize: number;
}

const VALID: Record<DType['kind'], readonly number[]> = {
  b: [1],
  i: [1, 2, 4, 8],
  u: [1, 2, 4, 8],
  f: [2, 4, 8],
  c: [8, 16],
};

/** Friendly aliases accepted in schemas and build configs. */
const ALIASES: Record<string, string> = {
  bool: '|b1',
  int8: '|i1',
  uint8: '|u1',
  int16: '<i2',
  uint16: '<u2',
  int32: '<i4',
  uint32: '<u4',
  int64: '<i8',
  uint64: '<u8',
  float16: '<f2',
  float32: '<f4',
  float64: '<f8',
  complex64: '<c8',
  complex128: '<c16',
};

export function parseDType(input: string): DType {
  const s = ALIASES[input] ?? input;
  const m = /^([<>|=]?)([biufc])(\d+)$/.exec(s);
  if (!m)
    throw new BetonEncodeError('BAD_SCHEMA', `unsupported dtype "${input}"; use a numpy typestr such as "<f4" or a name such as "float32"`);
  const kind = m[2] as DType['kind'];
  const itemsize = Number(m[3]);
  if (!VALID[kind].includes(itemsize))
    throw new BetonEncodeError('BAD_SCHEMA', `unsupported dtype "${input}": no ${kind}${itemsize} in numpy`);
  let order = (m[1] || '<') as DType['order'] | '=';
  if (order === '=') order = '<';
  // numpy writes '|' for types where byte order is meaningless.
  if (itemsize === 1) order = '|';
  else if (order === '|') order = '<';
  return { str: `${order}${kind}${itemsize}`, order, kind, itemsize };
}

export type NumericTypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

/**
 * Builds a typed-array view of little-endian element bytes where JS has one. Returns
 * null for float16, complex, bool and big-endian types; callers use the raw bytes.
 * Copies when the bytes are not aligned for the element size.
 */
export function typedView(d: DType, bytes: Uint8Array): NumericTypedArray | null {
  if (d.order === '>') return null;
  const ctor = ctorFor(d);
  if (!ctor) return null;
  const el = d.itemsize;
  const src = bytes.byteOffset % el === 0 ? bytes : bytes.slice();
  return new ctor(src.buffer, src.byteOffset, src.byteLength / el) as NumericTypedArray;
}

type Ctor = new (buf: ArrayBufferLike, off: number, len: number) => NumericTypedArray;

function ctorFor(d: DType): Ctor | null {
  switch (`${d.kind}${d.itemsize}`) {
    case 'i1':
      return Int8Array;
    case 'u1':
      return Uint8Array;
    case 'i2':
      return Int16Array;
    case 'u2':
      return Uint16Array;
    case 'i4':
      return Int32Array;
    case 'u4':
      return Uint32Array;
    case 'i8':
      return BigInt64Array;
    case 'u8':
      return BigUint64Array;
    case 'f4':
      return Float32Array;
    case 'f8':
      return Float64Array;
    default:
      return null;
  }
}

/** The typed-array class name matching a dtype, or null (used to accept typed arrays as input). */
export function typedArrayNameFor(d: DType): string | null {
  const c = ctorFor(d);
  return c ? c.name : null;
}

/**
 * Reads element `i` as a JS number/bigint/boolean/[re, im] for canonical dumps and
 * previews. Handles every supported dtype, including float16 and big-endian.
 */
export function readElement(d: DType, bytes: Uint8Array, i: number): number | bigint | boolean | [number, number] {
  const le = d.order !== '>';
  const off = i * d.itemsize;
  const v = new DataView(bytes.buffer, bytes.byteOffset + off, d.itemsize);
  switch (d.kind) {
    case 'b':
      return v.getUint8(0) !== 0;
    case 'i':
      if (d.itemsize === 1) return v.getInt8(0);
      if (d.itemsize === 2) return v.getInt16(0, le);
      if (d.itemsize === 4) return v.getInt32(0, le);
      return v.getBigInt64(0, le);
    case 'u':
      if (d.itemsize === 1) return v.getUint8(0);
      if (d.itemsize === 2) return v.getUint16(0, le);
      if (d.itemsize === 4) return v.getUint32(0, le);
      return v.getBigUint64(0, le);
    case 'f':
      if (d.itemsize === 2) return float16Value(v.getUint16(0, le));
      if (d.itemsize === 4) return v.getFloat32(0, le);
      return v.getFloat64(0, le);
    case 'c':
      if (d.itemsize === 8) return [v.getFloat32(0, le), v.getFloat32(4, le)];
      return [v.getFloat64(0, le), v.getFloat64(8, le)];
  }
}

/** Writes a JS value as element `i` (inverse of readElement). */
export function writeElement(d: DType, bytes: Uint8Array, i: number, value: number | bigint | boolean): void {
  const le = d.order !== '>';
  const v = new DataView(bytes.buffer, bytes.byteOffset + i * d.itemsize, d.itemsize);
  const n = typeof value === 'boolean' ? Number(value) : value;
  switch (d.kind) {
    case 'b':
      v.setUint8(0, n ? 1 : 0);
      return;
    case 'i':
    case 'u': {
      if (d.itemsize === 8) {
        const b = typeof n === 'bigint' ? n : BigInt(Math.trunc(n));
        if (d.kind === 'i') v.setBigInt64(0, b, le);
        else v.setBigUint64(0, b, le);
        return;
      }
      const x = Number(n);
      if (d.itemsize === 1) {
        if (d.kind === 'i') v.setInt8(0, x);
        else v.setUint8(0, x);
      } else if (d.itemsize === 2) {
        if (d.kind === 'i') v.setInt16(0, x, le);
        else v.setUint16(0, x, le);
      } else if (d.kind === 'i') v.setInt32(0, x, le);
      else v.setUint32(0, x, le);
      return;
    }
    case 'f': {
      const x = Number(n);
      if (d.itemsize === 2) v.setUint16(0, float16Bits(x), le);
      else if (d.itemsize === 4) v.setFloat32(0, x, le);
      else v.setFloat64(0, x, le);
      return;
    }
    case 'c': {
      const x = Number(n);
      if (d.itemsize === 8) v.setFloat32(0, x, le);
      else v.setFloat64(0, x, le);
      return;
    }
  }
}

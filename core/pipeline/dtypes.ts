/**
 * Element types of loader outputs. float16 has no JS typed array: it is stored as its
 * 16-bit patterns in a Uint16Array (as FFCV's NormalizeImage does with int16).
 */
import { float16Value, toFloat16Bits } from '../format/float16.js';

/** The element types, by numpy's names (the Convert op's schema and the contract's dtype list use them). */
export const ELEMENT_TYPES = [
  'uint8',
  'int8',
  'uint16',
  'int16',
  'uint32',
  'int32',
  'float16',
  'float32',
  'float64',
  'int64',
  'uint64',
] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];

export type OutputArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** The typed arrays that hold plain numbers (every element type but the 64-bit integers). */
export type NumericArray = Exclude<OutputArray, BigInt64Array | BigUint64Array>;

/** Per-sample output of a pipeline stage: shape without the batch dimension. */
export interface TensorSpec {
  shape: readonly number[];
  dtype: ElementType;
}

export const ELEMENT_BYTES: Record<ElementType, number> = {
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  float16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  float64: 8,
  int64: 8,
  uint64: 8,
};

export function elementCount(spec: TensorSpec): number {
  return spec.shape.reduce((a, b) => a * b, 1);
}

export function byteSize(spec: TensorSpec): number {
  return elementCount(spec) * ELEMENT_BYTES[spec.dtype];
}

/** A typed view of `length` elements of `dtype` over (shared) memory. */
export function viewOf(dtype: ElementType, buffer: ArrayBufferLike, byteOffset: number, length: number): OutputArray {
  switch (dtype) {
    case 'uint8':
      return new Uint8Array(buffer, byteOffset, length);
    case 'int8':
      return new Int8Array(buffer, byteOffset, length);
    case 'uint16':
    case 'float16':
      return new Uint16Array(buffer, byteOffset, length);
    case 'int16':
      return new Int16Array(buffer, byteOffset, length);
    case 'uint32':
      return new Uint32Array(buffer, byteOffset, length);
    case 'int32':
      return new Int32Array(buffer, byteOffset, length);
    case 'float32':
      return new Float32Array(buffer, byteOffset, length);
    case 'float64':
      return new Float64Array(buffer, byteOffset, length);
    case 'int64':
      return new BigInt64Array(buffer, byteOffset, length);
    case 'uint64':
      return new BigUint64Array(buffer, byteOffset, length);
  }
}

/** numpy dtype string of an element type (for exports and interop). */
export const NUMPY_DTYPE: Record<ElementType, string> = {
  uint8: '|u1',
  int8: '|i1',
  uint16: '<u2',
  int16: '<i2',
  float16: '<f2',
  uint32: '<u4',
  int32: '<i4',
  float32: '<f4',
  float64: '<f8',
  int64: '<i8',
  uint64: '<u8',
};

/** Element type of a numpy typestr, for NDArray fields; null when the loader cannot hold it. */
export function elementTypeOf(typestr: string): ElementType | null {
  const t = typestr.replace(/^[<|=]/, '');
  const map: Record<string, ElementType> = {
    u1: 'uint8',
    i1: 'int8',
    b1: 'uint8',
    u2: 'uint16',
    i2: 'int16',
    f2: 'float16',
    u4: 'uint32',
    i4: 'int32',
    f4: 'float32',
    f8: 'float64',
    i8: 'int64',
    u8: 'uint64',
  };
  return typestr.startsWith('>') ? null : (map[t] ?? null);
}

export const isFloatType = (t: ElementType): boolean => t === 'float16' || t === 'float32' || t === 'float64';

/**
 * One value cast as torch's `tensor.type(dtype)` does on x86 (FFCV's Convert), for the
 * element types below 64 bits: float → float16 through float32 (see toFloat16Bits); float
 * → integer truncates to int32 (NaN and out-of-range values give INT32_MIN, as cvttss2si)
 * and keeps the low bits, so −1.5 → uint8 255 and 300 → uint8 44; integer → integer wraps
 * (uint8 200 → int8 −56). uint16/uint32 (no torch dtype) follow the same rule. float16
 * results are returned as their value (encode with float16Bits (format/float16.ts), exact then).
 */
export function torchCast(x: number, from: ElementType, to: ElementType): number {
  switch (to) {
    case 'float64':
      return x;
    case 'float32':
      return Math.fround(x);
    case 'float16':
      return float16Value(toFloat16Bits(x));
    default: {
      let t = x;
      if (isFloatType(from)) {
        t = Math.trunc(x);
        if (!(t >= -(2 ** 31) && t < 2 ** 31)) t = -(2 ** 31);
      }
      switch (to) {
        case 'uint8':
          return t & 0xff;
        case 'int8':
          return (t << 24) >> 24;
        case 'uint16':
          return t & 0xffff;
        case 'int16':
          return (t << 16) >> 16;
        case 'int32':
          return t | 0;
        case 'uint32':
          return t >>> 0;
        default:
          throw new Error(`torchCast: ${to} is not a number type below 64 bits`);
      }
    }
  }
}

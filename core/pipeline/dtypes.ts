/**
 * Element types of loader outputs. float16 has no JS typed array: it is stored as its
 * 16-bit patterns in a Uint16Array (as FFCV's NormalizeImage does with int16).
 */
export type ElementType =
  'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float16' | 'float32' | 'float64' | 'int64' | 'uint64';

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

/**
 * Float → float16 bits through float32 (round to nearest even twice), as torch's
 * `.type(torch.float16)` converts a float64 tensor (c10::Half is built from a float); for
 * float32 values (and every value a uint8 or float16 can hold) this is the exact rounding.
 */
export function toFloat16Bits(x: number): number {
  const f = new Float32Array([x]);
  const b = new Uint32Array(f.buffer)[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 112;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
  return sign | h;
}

/**
 * float64 → float16 bits rounded once, to nearest even, as numpy's `astype(np.float16)`
 * (FFCV's NormalizeImage table); differs from {@link toFloat16Bits} on values that sit just
 * past a float16 tie, where rounding to float32 first lands on the tie.
 */
export function float64ToFloat16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  // Subnormals (and zero): steps of 2^-24; 1024 steps is the smallest normal, encoded alike.
  if (a < 2 ** -14) return sign | roundEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  if (e > 15) return sign | 0x7c00;
  // a · 2^(10−e) is exact (a power-of-two scaling); a carry to 2048 moves into the exponent.
  const bits = ((e + 15) << 10) + roundEven(a * 2 ** (10 - e)) - 1024;
  return sign | Math.min(bits, 0x7c00);
}

/** The number a float16 bit pattern holds. */
export function float16Value(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function roundEven(q: number): number {
  const r = Math.round(q);
  return r - q === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export const isFloatType = (t: ElementType): boolean => t === 'float16' || t === 'float32' || t === 'float64';

/**
 * One value cast as torch's `tensor.type(dtype)` does on x86 (FFCV's Convert), for the
 * element types below 64 bits: float → float16 through float32 (see toFloat16Bits); float
 * → integer truncates to int32 (NaN and out-of-range values give INT32_MIN, as cvttss2si)
 * and keeps the low bits, so −1.5 → uint8 255 and 300 → uint8 44; integer → integer wraps
 * (uint8 200 → int8 −56). uint16/uint32 (no torch dtype) follow the same rule. float16
 * results are returned as their value (encode with float64ToFloat16Bits, exact then).
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

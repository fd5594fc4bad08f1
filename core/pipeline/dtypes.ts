/**
 * Element types of loader outputs. float16 has no JS typed array: it is stored as its
 * 16-bit patterns in a Uint16Array (as FFCV's NormalizeImage does with int16).
 */
export type ElementType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float16' | 'float32' | 'float64' | 'int64' | 'uint64';

export type OutputArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

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
    case 'uint8': return new Uint8Array(buffer, byteOffset, length);
    case 'int8': return new Int8Array(buffer, byteOffset, length);
    case 'uint16':
    case 'float16': return new Uint16Array(buffer, byteOffset, length);
    case 'int16': return new Int16Array(buffer, byteOffset, length);
    case 'uint32': return new Uint32Array(buffer, byteOffset, length);
    case 'int32': return new Int32Array(buffer, byteOffset, length);
    case 'float32': return new Float32Array(buffer, byteOffset, length);
    case 'float64': return new Float64Array(buffer, byteOffset, length);
    case 'int64': return new BigInt64Array(buffer, byteOffset, length);
    case 'uint64': return new BigUint64Array(buffer, byteOffset, length);
  }
}

/** numpy dtype string of an element type (for exports and interop). */
export const NUMPY_DTYPE: Record<ElementType, string> = {
  uint8: '|u1', int8: '|i1', uint16: '<u2', int16: '<i2', float16: '<f2', uint32: '<u4', int32: '<i4', float32: '<f4', float64: '<f8', int64: '<i8', uint64: '<u8',
};

/** Element type of a numpy typestr, for NDArray fields; null when the loader cannot hold it. */
export function elementTypeOf(typestr: string): ElementType | null {
  const t = typestr.replace(/^[<|=]/, '');
  const map: Record<string, ElementType> = { u1: 'uint8', i1: 'int8', b1: 'uint8', u2: 'uint16', i2: 'int16', f2: 'float16', u4: 'uint32', i4: 'int32', f4: 'float32', f8: 'float64', i8: 'int64', u8: 'uint64' };
  return typestr.startsWith('>') ? null : (map[t] ?? null);
}

/** Float → float16 bits (round to nearest even). */
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

import { createHash } from 'node:crypto';
import { parseDType, readElement } from '../format/dtype.js';
import type { NDArray } from '../fields/ndarray-field.js';
import { floatRepr } from '../fields/python-json.js';
import type { DecodedImage } from '../fields/rgb-image-field.js';
import type { Reader } from './reader.js';

/**
 * The canonical, implementation-neutral encoding of a sample used by the golden
 * manifests and `beton dump`: ints as decimal strings, floats as bit patterns, arrays,
 * bytes, JSON and images with sha256 digests. Two readers agree iff these agree.
 */
export type CanonicalValue = string | Record<string, unknown>;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export function canonicalSample(reader: Reader, i: number): Record<string, CanonicalValue> {
  const out: Record<string, CanonicalValue> = {};
  reader.fields.forEach(({ name, field }, f) => {
    const value = reader.readField(i, f);
    switch (field.type) {
      case 'int':
        out[name] = (value as bigint).toString();
        break;
      case 'float': {
        const b = new DataView(new ArrayBuffer(8));
        b.setFloat64(0, value as number);
        out[name] = { f64_bits: b.getBigUint64(0).toString(16).padStart(16, '0'), repr: floatRepr(value as number) };
        break;
      }
      case 'bytes': {
        const v = value as Uint8Array;
        out[name] = { size: v.byteLength, sha256: sha256(v), head_hex: hex(v.subarray(0, 32)) };
        break;
      }
      case 'json': {
        const ref = reader.heapRef(i, f)!;
        const stored = reader.readBytes(ref);
        out[name] = { value: jsonSafe(value), size: stored.byteLength, sha256: sha256(stored) };
        break;
      }
      case 'ndarray':
      case 'torch_tensor': {
        const a = value as NDArray;
        out[name] = { dtype: a.dtype, shape: a.shape, sha256: sha256(a.bytes), values: ndarrayValues(a) };
        break;
      }
      case 'rgb_image': {
        const im = value as DecodedImage;
        out[name] = {
          mode: im.mode,
          width: im.width,
          height: im.height,
          sha256: sha256(im.data),
          stored_size: im.stored.byteLength,
          stored_sha256: sha256(im.stored),
        };
        break;
      }
      default:
        out[name] = { type: field.type, value: jsonSafe(value) };
    }
  });
  return out;
}

/** Nested lists in C order; NaN/±Infinity as strings, 64-bit ints as numbers when safe, else strings. */
export function ndarrayValues(a: NDArray): unknown {
  const d = parseDType(a.dtype);
  let k = 0;
  const conv = (x: ReturnType<typeof readElement>): unknown => {
    if (typeof x === 'bigint') return x >= -(2n ** 53n) && x <= 2n ** 53n ? Number(x) : x.toString();
    if (typeof x === 'number') return Number.isFinite(x) ? x : String(x);
    if (Array.isArray(x)) return x.map((c) => (Number.isFinite(c) ? c : String(c)));
    return x;
  };
  const build = (dim: number): unknown => {
    const n = a.shape[dim]!;
    const row: unknown[] = [];
    for (let j = 0; j < n; j++) row.push(dim === a.shape.length - 1 ? conv(readElement(d, a.bytes, k++)) : build(dim + 1));
    return row;
  };
  return build(0);
}

/** Makes decoded JSON values printable with JSON.stringify (NaN/Infinity → strings). */
function jsonSafe(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSafe(x)]));
  if (v instanceof Uint8Array) return { size: v.byteLength, sha256: sha256(v) };
  return v;
}

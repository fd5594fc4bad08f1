import { isAbsolute, resolve } from 'node:path';
import { parseDType, readElement } from '../../format/dtype.js';
import type { ImageInput } from '../../fields/image-codec.js';
import type { NDArray } from '../../fields/ndarray-field.js';
import { PyFloat } from '../../fields/python-json.js';
import { BetonError } from '../../format/errors.js';
import { setOwn } from '../../format/own-keys.js';
import { isImageBytes, isMissing, isNAText, isNDArrayValue, parseBoolText, parseFloatText, parseIntText } from './cell-text.js';

/**
 * Turns source cells (CSV text, JSON values, Parquet values, npy rows) into the values the
 * field encoders accept (an ndarray's elements: element-writer.ts). Each function throws
 * ValueProblem with what was wrong with the value; column-mapping.ts adds the file, row,
 * column and field to the message.
 */
export class ValueProblem extends BetonError<'BAD_VALUE'> {
  override readonly name: string = 'ValueProblem';
  constructor(message: string) {
    super('BAD_VALUE', message);
  }
}

/** A value as a message names it (text quoted and cut at 60 characters). */
export const describeValue = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof Uint8Array) return `${v.byteLength} bytes`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object' && v !== null) return 'an object';
  return String(v);
};

export function toInt(v: unknown): number | bigint {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyFloat && Number.isInteger(v.value)) return v.value;
  if (typeof v === 'string') {
    const i = parseIntText(v);
    if (i !== null) return i;
    const f = parseFloatText(v);
    if (f !== null && Number.isInteger(f)) return f;
    const b = parseBoolText(v);
    if (b !== null) return b ? 1 : 0;
  }
  if (isMissing(v) || (typeof v === 'string' && isNAText(v)))
    throw new ValueProblem('the value is missing (an int field needs a value in every row; use a float field for NaN)');
  throw new ValueProblem(`expected an integer, got ${describeValue(v)}`);
}

export function toFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyFloat) return v.value;
  if (isMissing(v)) return NaN;
  if (typeof v === 'string') {
    const f = parseFloatText(v);
    if (f !== null) return f;
    if (isNAText(v)) return NaN;
    const b = parseBoolText(v);
    if (b !== null) return b ? 1 : 0;
  }
  throw new ValueProblem(`expected a number, got ${describeValue(v)}`);
}

/**
 * A Uint8Array with its own buffer. Parquet readers hand out views into a whole decoded
 * page; cloned to an encoder thread, a view would drag that page along.
 */
export function ownBytes(u: Uint8Array): Uint8Array {
  return u.byteOffset === 0 && u.byteLength === u.buffer.byteLength ? u : u.slice();
}

export function toBytes(v: unknown): Uint8Array | string {
  if (v instanceof Uint8Array) return ownBytes(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (isMissing(v)) throw new ValueProblem('the value is missing');
  throw new ValueProblem(`expected a string or bytes, got ${describeValue(v)}; use a json field for structured values`);
}

/** A JSON-serialisable value: dates as ISO strings, typed arrays as lists, missing as null. */
export function toJson(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof PyFloat) return v.value;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) throw new ValueProblem(`binary values (${v.byteLength} bytes) cannot be stored as JSON; use a bytes field`);
  if (isNDArrayValue(v)) return nestedList(v);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number | bigint>);
  if (Array.isArray(v)) return v.map(toJson);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, toJson(x));
    return out;
  }
  return v;
}

function nestedList(a: NDArray): unknown {
  const d = parseDType(a.dtype);
  let i = 0;
  const build = (depth: number): unknown => {
    if (depth === a.shape.length) return readElement(d, a.bytes, i++);
    return Array.from({ length: a.shape[depth]! }, () => build(depth + 1));
  };
  return build(0);
}

/** What an RGBImageField accepts: a path (relative ones resolved from `baseDir`) or encoded bytes. */
export function toImage(v: unknown, baseDir: string): ImageInput {
  if (typeof v === 'string' && v.trim() !== '') return { path: isAbsolute(v) ? v : resolve(baseDir, v) };
  if (v instanceof Uint8Array) return { file: ownBytes(v) };
  if (isImageBytes(v)) return typeof v.path === 'string' ? { file: ownBytes(v.bytes), name: v.path } : { file: ownBytes(v.bytes) };
  if (typeof v === 'object' && v !== null && typeof (v as { path?: unknown }).path === 'string') {
    const p = (v as { path: string }).path;
    return { path: isAbsolute(p) ? p : resolve(baseDir, p) };
  }
  if (isMissing(v) || v === '') throw new ValueProblem('the image path is missing');
  throw new ValueProblem(`expected an image path or encoded image bytes, got ${describeValue(v)}`);
}

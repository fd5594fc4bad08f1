import { isAbsolute, resolve } from 'node:path';
import { parseDType, readElement, typedView, writeElement, type DType, type NumericTypedArray } from '../../format/dtype.js';
import type { ImageInput } from '../../fields/image-codec.js';
import type { NDArray } from '../../fields/ndarray-field.js';
import { PyFloat } from '../../fields/python-json.js';
import { BetonError } from '../../format/errors.js';
import { setOwn } from '../../format/own-keys.js';

/**
 * Turns source cells (CSV text, JSON values, Parquet values, npy rows) into the values the
 * field encoders accept. Each function throws ValueProblem with what was wrong with the
 * value; column-mapping.ts adds the file, row, column and field to the message.
 */
export class ValueProblem extends BetonError<'BAD_VALUE'> {
  override readonly name: string = 'ValueProblem';
  constructor(message: string) {
    super('BAD_VALUE', message);
  }
}

/** Cells pandas reads as missing (na_values defaults); numeric fields read them as NaN. */
const NA_TEXT = new Set([
  '',
  '#N/A',
  '#N/A N/A',
  '#NA',
  '-1.#IND',
  '-1.#QNAN',
  '-NaN',
  '-nan',
  '1.#IND',
  '1.#QNAN',
  '<NA>',
  'N/A',
  'NA',
  'NULL',
  'NaN',
  'None',
  'n/a',
  'nan',
  'null',
]);

export function isMissing(v: unknown): boolean {
  return v === undefined || v === null;
}

export function isNAText(s: string): boolean {
  return NA_TEXT.has(s.trim());
}

/** "12", "-3", "+7" → number (bigint beyond 2^53), else null. */
export function parseIntText(s: string): number | bigint | null {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : BigInt(t);
}

/** Decimal/scientific text, inf/nan spellings → number, else null. */
export function parseFloatText(s: string): number | null {
  const t = s.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const l = t.toLowerCase();
  if (l === 'nan' || l === '-nan' || l === '+nan') return NaN;
  if (l === 'inf' || l === '+inf' || l === 'infinity' || l === '+infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  return null;
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INT_TEXT = /^[+-]?\d+$/;

/** Any numeric text (integers beyond 2^53 as exact bigints), or null. The hot path of CSV arrays. */
export function parseNumberText(s: string): number | bigint | null {
  const t = s.length > 0 && (s.charCodeAt(0) <= 32 || s.charCodeAt(s.length - 1) <= 32) ? s.trim() : s;
  if (NUMBER_TEXT.test(t)) {
    const n = Number(t);
    return Number.isInteger(n) && !Number.isSafeInteger(n) && INT_TEXT.test(t) ? BigInt(t) : n;
  }
  return parseFloatText(t);
}

/** pandas' boolean spellings. */
export function parseBoolText(s: string): boolean | null {
  const t = s.trim();
  if (t === 'True' || t === 'true' || t === 'TRUE') return true;
  if (t === 'False' || t === 'false' || t === 'FALSE') return false;
  return null;
}

export function isNDArrayValue(v: unknown): v is NDArray {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as NDArray).bytes instanceof Uint8Array &&
    typeof (v as NDArray).dtype === 'string' &&
    Array.isArray((v as NDArray).shape)
  );
}

/** Hugging Face's image struct: `{ bytes, path }` with the encoded file in `bytes`. */
export function isImageBytes(v: unknown): v is { bytes: Uint8Array; path?: unknown } {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && !isNDArrayValue(v) && (v as { bytes?: unknown }).bytes instanceof Uint8Array
  );
}

const describe = (v: unknown): string => {
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
  throw new ValueProblem(`expected an integer, got ${describe(v)}`);
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
  throw new ValueProblem(`expected a number, got ${describe(v)}`);
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
  throw new ValueProblem(`expected a string or bytes, got ${describe(v)}; use a json field for structured values`);
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
  throw new ValueProblem(`expected an image path or encoded image bytes, got ${describe(v)}`);
}

/** Integer dtypes' ranges, for a clear error instead of numpy-style wrap-around. */
function intRange(d: DType): [bigint, bigint] {
  const bits = BigInt(d.itemsize * 8);
  return d.kind === 'u' ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
}

/**
 * Element collector for one NDArray value: appends scalars, arrays (any nesting), typed
 * arrays, NDArrays and numeric text, converting to the field's dtype as it goes. Plain
 * numbers go straight into a typed-array view (784 CSV cells a row make this the hot path);
 * everything else through dtype.ts's writeElement.
 */
export class ElementWriter {
  readonly bytes: Uint8Array;
  count = 0;
  private readonly range: [bigint, bigint] | null;
  /** The same range as numbers, for integer dtypes up to 4 bytes. */
  private readonly small: [number, number] | null;
  private readonly fast: NumericTypedArray | null;

  constructor(
    private readonly dtype: DType,
    readonly capacity: number,
  ) {
    this.bytes = new Uint8Array(capacity * dtype.itemsize);
    const isInt = dtype.kind === 'i' || dtype.kind === 'u';
    this.range = isInt ? intRange(dtype) : null;
    this.small = this.range && dtype.itemsize <= 4 ? [Number(this.range[0]), Number(this.range[1])] : null;
    const view = typedView(dtype, this.bytes);
    // BigInt64 views take bigints only; numbers for 8-byte ints go the generic way.
    this.fast = view && !(isInt && dtype.itemsize === 8) ? view : null;
  }

  /** Appends every element of `v`; throws ValueProblem naming the bad element. */
  add(v: unknown): void {
    if (typeof v === 'number') return this.push(v);
    if (typeof v === 'string') {
      const x = parseNumberText(v);
      if (x !== null) return this.push(x);
      const t = v.trim();
      // A CSV cell may hold a whole JSON list ("[1, 2, 3]").
      if (t.startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(t);
        } catch {
          throw new ValueProblem(`${describe(v)} is not a number or a JSON list`);
        }
        this.add(parsed);
        return;
      }
      const b = parseBoolText(t);
      if (b !== null) return this.push(b);
      throw new ValueProblem(`element ${this.count} is ${describe(v)}, not a number`);
    }
    if (isNDArrayValue(v)) {
      const src = parseDType(v.dtype);
      const n = v.bytes.byteLength / src.itemsize;
      if (src.str === this.dtype.str) {
        this.reserve(n);
        this.bytes.set(v.bytes, this.count * this.dtype.itemsize);
        this.count += n;
        return;
      }
      if (src.kind === 'c') throw new ValueProblem(`cannot convert complex ${v.dtype} to ${this.dtype.str}`);
      for (let i = 0; i < n; i++) this.push(readElement(src, v.bytes, i) as number | bigint | boolean);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) this.add(x);
      return;
    }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const arr = v as unknown as ArrayLike<number | bigint>;
      for (let i = 0; i < arr.length; i++) this.push(arr[i]!);
      return;
    }
    if (v instanceof PyFloat) return this.push(v.value);
    if (typeof v === 'bigint' || typeof v === 'boolean') return this.push(v);
    if (isMissing(v)) throw new ValueProblem(`element ${this.count} is missing`);
    throw new ValueProblem(`element ${this.count} is ${describe(v)}, not a number`);
  }

  private reserve(n: number): void {
    if (this.count + n > this.capacity) throw new ValueProblem(`more than the ${this.capacity} elements the shape holds`);
  }

  private push(x: number | bigint | boolean): void {
    if (this.count >= this.capacity) this.reserve(1);
    if (typeof x === 'number' && this.fast) {
      if (this.small) {
        if (!Number.isInteger(x)) throw new ValueProblem(`element ${this.count} is ${x}, not an integer (dtype ${this.dtype.str})`);
        if (x < this.small[0] || x > this.small[1])
          throw new ValueProblem(
            `element ${this.count} is ${x}, outside the range of dtype ${this.dtype.str} (${this.small[0]}..${this.small[1]})`,
          );
      }
      this.fast[this.count++] = x;
      return;
    }
    if (this.range) {
      const isInt = typeof x === 'bigint' || typeof x === 'boolean' || Number.isInteger(x);
      if (!isInt) throw new ValueProblem(`element ${this.count} is ${x}, not an integer (dtype ${this.dtype.str})`);
      const b = typeof x === 'bigint' ? x : BigInt(Number(x));
      if (b < this.range[0] || b > this.range[1])
        throw new ValueProblem(
          `element ${this.count} is ${b}, outside the range of dtype ${this.dtype.str} (${this.range[0]}..${this.range[1]})`,
        );
    }
    writeElement(this.dtype, this.bytes, this.count++, x);
  }
}

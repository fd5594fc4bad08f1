import { parseDType, readElement, typedView, writeElement, type DType, type NumericTypedArray } from '../../format/dtype.js';
import { PyFloat } from '../../fields/python-json.js';
import { isMissing, isNDArrayValue, parseBoolText, parseNumberText } from './cell-text.js';
import { describeValue, ValueProblem } from './value-coercion.js';

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
          throw new ValueProblem(`${describeValue(v)} is not a number or a JSON list`);
        }
        this.add(parsed);
        return;
      }
      const b = parseBoolText(t);
      if (b !== null) return this.push(b);
      throw new ValueProblem(`element ${this.count} is ${describeValue(v)}, not a number`);
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
    throw new ValueProblem(`element ${this.count} is ${describeValue(v)}, not a number`);
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

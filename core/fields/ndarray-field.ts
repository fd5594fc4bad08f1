import { FIELD_ARGS_SIZE } from '../format/constants.js';
import {
  parseDType,
  readElement,
  typedArrayNameFor,
  typedView,
  writeElement,
  type DType,
  type NumericTypedArray,
} from '../format/dtype.js';
import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { describeValue, TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import { elementTypeOf } from '../pipeline/dtypes.js';
import { PipelineError } from '../pipeline/stage.js';
import type { DecoderFactory, FieldType } from './field-type.js';
import { pythonJsonDumps } from './python-json.js';
import { FIELD_TYPE } from '../api/constants.js';

/** An n-d array as stored: raw element bytes in C order, in the dtype's byte order. */
export interface NDArray {
  dtype: string;
  shape: number[];
  bytes: Uint8Array;
}

const MAX_RANK = 32;
const SHAPE_BYTES = MAX_RANK * 8;

/** A typed-array view of an NDArray's elements where JS has a matching type, else null. */
export function ndarrayTypedView(a: NDArray): NumericTypedArray | null {
  return typedView(parseDType(a.dtype), a.bytes);
}

/** The identities of ndarray and torch_tensor (same bytes, two names), each declared once. */
export const NDARRAY_IDENTITY = { type: FIELD_TYPE.ndarray, typeId: 4, ffcvClass: 'NDArrayField' } as const satisfies FieldIdentity;
export const TORCH_TENSOR_IDENTITY = {
  type: FIELD_TYPE.torchTensor,
  typeId: 6,
  ffcvClass: 'TorchTensorField',
} as const satisfies FieldIdentity;

/**
 * NDArrayField (type 4): a fixed dtype and shape; each sample's elements go to the heap,
 * the metadata is the u64 pointer. Arguments: shape as 32 × <u8, then the length and
 * text of Python's json.dumps(dtype.descr).
 */
export class NDArrayField extends TypedField<NDArray> {
  readonly metadata = { size: 8, align: 8 };
  readonly pointerOffset = 0;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /** Bytes per sample. */
  readonly elementSize: number;
  readonly count: number;

  constructor(opts: { dtype: string; shape: readonly number[] }, identity: FieldIdentity = NDARRAY_IDENTITY) {
    super(identity);
    this.dtype = parseDType(opts.dtype);
    const shape = [...opts.shape];
    if (shape.length === 0 || shape.length > MAX_RANK) {
      throw new BetonEncodeError(
        'BAD_SCHEMA',
        `NDArrayField shape must have rank 1..${MAX_RANK} (FFCV cannot read back rank 0), got [${shape.join(', ')}]`,
      );
    }
    for (const d of shape) {
      if (!Number.isSafeInteger(d) || d <= 0) {
        throw new BetonEncodeError(
          'BAD_SCHEMA',
          `NDArrayField shape dimensions must be positive integers (FFCV drops zero dims), got [${shape.join(', ')}]`,
        );
      }
    }
    this.shape = shape;
    this.count = shape.reduce((a, b) => a * b, 1);
    this.elementSize = this.count * this.dtype.itemsize;
  }

  toSpec(): FieldSpec {
    return { type: this.type, dtype: this.dtype.str, shape: [...this.shape] };
  }

  override encodeArguments(): Uint8Array {
    const out = new Uint8Array(FIELD_ARGS_SIZE);
    const v = new DataView(out.buffer);
    this.shape.forEach((d, i) => v.setBigUint64(i * 8, BigInt(d), true));
    const text = pythonJsonDumps([['', this.dtype.str]]);
    v.setBigUint64(SHAPE_BYTES, BigInt(text.length), true);
    for (let i = 0; i < text.length; i++) out[SHAPE_BYTES + 8 + i] = text.charCodeAt(i);
    return out;
  }

  /** Rebuilds the field from a descriptor's 1024-byte arguments (what FFCV's reader does). */
  static parseArguments(args: Uint8Array, where: string): { dtype: string; shape: number[] } {
    const v = new DataView(args.buffer, args.byteOffset, args.byteLength);
    const shape: number[] = [];
    for (let i = 0; i < MAX_RANK; i++) shape.push(Number(v.getBigUint64(i * 8, true)));
    while (shape.length && shape[shape.length - 1] === 0) shape.pop();
    const len = Number(v.getBigUint64(SHAPE_BYTES, true));
    const bad = (why: string): never => {
      throw new BetonFormatError('BAD_FIELD', `${where}: NDArray arguments are corrupt (${why})`);
    };
    if (len <= 0 || SHAPE_BYTES + 8 + len > args.byteLength) bad(`dtype text length ${len}`);
    let descr: unknown;
    try {
      descr = JSON.parse(new TextDecoder().decode(args.subarray(SHAPE_BYTES + 8, SHAPE_BYTES + 8 + len)));
    } catch {
      bad('dtype text is not JSON');
    }
    if (!Array.isArray(descr) || descr.length !== 1 || !Array.isArray(descr[0]) || typeof descr[0][1] !== 'string') {
      bad('structured or malformed dtype description');
    }
    if (shape.length === 0 || shape.some((d) => d === 0)) bad(`shape [${shape.join(', ')}]`);
    const typestr = (descr as [[string, string]])[0][1];
    try {
      parseDType(typestr);
    } catch {
      bad(`unsupported dtype ${typestr}`);
    }
    return { dtype: typestr, shape };
  }

  encode(value: unknown): EncodedValue {
    const bytes = this.toBytes(value);
    if (bytes.byteLength !== this.elementSize) {
      throw new BetonEncodeError(
        'BAD_VALUE',
        `NDArrayField(${this.dtype.str}, [${this.shape.join(', ')}]) expects ${this.elementSize} bytes (${this.count} elements), got ${bytes.byteLength} bytes`,
      );
    }
    return { meta: new Uint8Array(8), heap: bytes };
  }

  private toBytes(value: unknown): Uint8Array {
    if (value && typeof value === 'object' && 'bytes' in value && (value as NDArray).bytes instanceof Uint8Array) {
      const a = value as NDArray;
      if (a.dtype !== undefined && parseDType(a.dtype).str !== this.dtype.str) {
        throw new BetonEncodeError('BAD_VALUE', `NDArrayField expects dtype ${this.dtype.str}, got ${a.dtype}`);
      }
      return a.bytes;
    }
    if (ArrayBuffer.isView(value)) {
      const name = value.constructor.name;
      if (name === typedArrayNameFor(this.dtype) || value instanceof Uint8Array) {
        return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      }
      if (value instanceof DataView) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      return this.fromNumbers(Array.from(value as unknown as ArrayLike<number | bigint>));
    }
    if (Array.isArray(value)) return this.fromNumbers(value.flat(MAX_RANK) as unknown[]);
    throw new BetonEncodeError(
      'BAD_VALUE',
      `NDArrayField expects a typed array, a (nested) number array or {dtype, shape, bytes}; got ${describeValue(value)}`,
    );
  }

  private fromNumbers(values: unknown[]): Uint8Array {
    if (values.length !== this.count) {
      throw new BetonEncodeError(
        'BAD_VALUE',
        `NDArrayField expects ${this.count} elements for shape [${this.shape.join(', ')}], got ${values.length}`,
      );
    }
    const out = new Uint8Array(this.elementSize);
    values.forEach((x, i) => {
      if (typeof x !== 'number' && typeof x !== 'bigint' && typeof x !== 'boolean') {
        throw new BetonEncodeError('BAD_VALUE', `NDArrayField element ${i} is ${describeValue(x)}, not a number`);
      }
      writeElement(this.dtype, out, i, x);
    });
    return out;
  }

  override heapSize(): number {
    return this.elementSize;
  }

  decode(_meta: DataView, heap: Uint8Array | null): NDArray {
    return { dtype: this.dtype.str, shape: [...this.shape], bytes: heap ? heap.slice() : new Uint8Array(this.elementSize) };
  }
}

/** TorchTensorField (type 6): stored exactly like NDArrayField (numpy dtype of the tensor). */
export class TorchTensorField extends NDArrayField {
  constructor(opts: { dtype: string; shape: readonly number[] }) {
    super(opts, TORCH_TENSOR_IDENTITY);
  }
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

/** NDArrayDecoder: the stored elements, as they are, in the field's shape. */
const ndarrayDecoder: DecoderFactory = (_step, field) => {
  const f = field as NDArrayField;
  const dtype = elementTypeOf(f.dtype.str);
  if (!dtype)
    throw new PipelineError(
      'UNSUPPORTED_INPUT',
      `the loader cannot hold dtype ${f.dtype.str} (complex or big-endian); read it with Reader instead`,
    );
  return {
    output: { shape: [...f.shape], dtype },
    decode: (_m, heap, d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength).set(heap!),
  };
};

/** Everything but the constructor is shared by ndarray and torch_tensor (same bytes). */
function arrayType<F extends NDArrayField>(
  identity: FieldIdentity,
  make: (o: { dtype: string; shape: number[] }) => F,
  fieldPy: (ffcvClass: string, dtype: string, shape: string) => string,
): FieldType<F> {
  return {
    ...identity,
    fromSpec: (s) => make({ dtype: String(s.dtype), shape: s.shape as number[] }),
    fromArguments: (a, where) => make(NDArrayField.parseArguments(a, where)),
    decoders: { ndarray: ndarrayDecoder },
    defaultDecoder: { decoder: 'ndarray' },
    preview: (v) => {
      const a = v as NDArray;
      const vals = JSON.stringify(ndarrayValues(a));
      return { kind: 'text', text: `${a.dtype} [${a.shape.join(', ')}] ${vals.length > 120 ? vals.slice(0, 120) + '…' : vals}` };
    },
    canonical: (v, t) => {
      const a = v as NDArray;
      return { dtype: a.dtype, shape: a.shape, sha256: t.sha256(a.bytes), values: ndarrayValues(a) };
    },
    python: {
      field: (c) =>
        fieldPy(
          identity.ffcvClass,
          JSON.stringify(c.dtype),
          `(${(c.shape as number[]).join(', ')}${(c.shape as number[]).length === 1 ? ',' : ''})`,
        ),
      decoders: { ndarray: () => 'NDArrayDecoder()' },
    },
  };
}

export const NDARRAY_TYPE = arrayType(
  NDARRAY_IDENTITY,
  (o) => new NDArrayField(o),
  (cls, dtype, shape) => `${cls}(dtype=np.dtype(${dtype}), shape=${shape})`,
);
export const TORCH_TENSOR_TYPE = arrayType(
  TORCH_TENSOR_IDENTITY,
  (o) => new TorchTensorField(o),
  (cls, dtype, shape) => `${cls}(dtype=torch.from_numpy(np.zeros(0, dtype=np.dtype(${dtype}))).dtype, shape=${shape})`,
);

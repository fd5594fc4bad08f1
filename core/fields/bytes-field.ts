import { BetonEncodeError } from '../format/errors.js';
import { describeValue, TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import type { DecoderFactory, FieldStats, FieldTable, FieldType } from './field-type.js';
import { FIELD_TYPE } from '../api/constants.js';

/** Packed {ptr <u8 @0, size <u8 @8}: 16 bytes, numpy alignment 1. */
export const BYTES_METADATA = { size: 16, align: 1 };

export function bytesMeta(size: number): Uint8Array {
  const meta = new Uint8Array(16);
  new DataView(meta.buffer).setBigUint64(8, BigInt(size), true);
  return meta;
}

/** bytes' identity, declared once: BytesField and BYTES_TYPE read it. */
export const BYTES_IDENTITY = { type: FIELD_TYPE.bytes, typeId: 3, ffcvClass: 'BytesField' } as const satisfies FieldIdentity;

/** BytesField (type 3): a variable-length byte string on the heap. */
export class BytesField extends TypedField<Uint8Array> {
  readonly metadata = BYTES_METADATA;
  readonly pointerOffset = 0;

  constructor() {
    super(BYTES_IDENTITY);
  }

  toSpec(): FieldSpec {
    return { type: this.type };
  }

  encode(value: unknown): EncodedValue {
    let bytes: Uint8Array;
    if (value instanceof Uint8Array) bytes = value;
    else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
    else if (typeof value === 'string') bytes = new TextEncoder().encode(value);
    else throw new BetonEncodeError('BAD_VALUE', `BytesField expects a Uint8Array (or string), got ${describeValue(value)}`);
    return { meta: bytesMeta(bytes.byteLength), heap: bytes };
  }

  override heapSize(meta: DataView): number {
    return Number(meta.getBigUint64(8, true));
  }

  decode(_meta: DataView, heap: Uint8Array | null): Uint8Array {
    return heap ? heap.slice() : new Uint8Array(0);
  }
}

/** The longest heap object of the field: bytes rows are that wide. */
export function maxBytesStats(t: FieldTable): FieldStats {
  let maxBytes = 0;
  for (let i = 0; i < t.numSamples; i++) maxBytes = Math.max(maxBytes, t.heapSize(i));
  return { maxBytes };
}

/** BytesDecoder: rows are max-size wide; the tail past a sample's length is zeroed (FFCV leaves stale bytes). */
export const bytesDecoder: DecoderFactory = (_step, _field, stats) => ({
  output: { shape: [Math.max(1, Number(stats.maxBytes ?? 0))], dtype: 'uint8' },
  decode: (_m, heap, d) => {
    const row = d as Uint8Array;
    const n = heap ? heap.byteLength : 0;
    if (heap) row.set(heap);
    row.fill(0, n);
  },
});

/** Lowercase hex of some bytes (pure: no Buffer). */
export function hexOf(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

export const BYTES_TYPE: FieldType<BytesField> = {
  ...BYTES_IDENTITY,
  fromSpec: () => new BytesField(),
  decoders: { bytes: bytesDecoder },
  defaultDecoder: { decoder: 'bytes' },
  stats: maxBytesStats,
  preview: (v) => {
    const b = v as Uint8Array;
    return { kind: 'text', text: `${b.byteLength} bytes ${hexOf(b.subarray(0, 16))}${b.byteLength > 16 ? '…' : ''}` };
  },
  canonical: (v, t) => {
    const b = v as Uint8Array;
    return { size: b.byteLength, sha256: t.sha256(b), head_hex: t.hex(b.subarray(0, 32)) };
  },
  python: { field: () => `${BYTES_IDENTITY.ffcvClass}()`, decoders: { bytes: () => 'BytesDecoder()' } },
};

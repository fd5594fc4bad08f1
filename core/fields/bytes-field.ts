import { BetonEncodeError } from '../format/errors.js';
import { describeValue, Field, type EncodedValue, type FieldSpec } from './field.js';

/** Packed {ptr <u8 @0, size <u8 @8}: 16 bytes, numpy alignment 1. */
export const BYTES_METADATA = { size: 16, align: 1 };

export function bytesMeta(size: number): Uint8Array {
  const meta = new Uint8Array(16);
  new DataView(meta.buffer).setBigUint64(8, BigInt(size), true);
  return meta;
}

/** BytesField (type 3): a variable-length byte string on the heap. */
export class BytesField extends Field<Uint8Array> {
  readonly typeId: number = 3;
  readonly type: string = 'bytes';
  readonly ffcvClass: string = 'BytesField';
  readonly metadata = BYTES_METADATA;
  readonly pointerOffset = 0;

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

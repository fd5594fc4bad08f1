import { BetonEncodeError } from '../format/errors.js';
import { describeValue, TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import type { FieldType } from './field-type.js';
import { FIELD_TYPE } from '../api/constants.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** int's identity, declared once: IntField and INT_TYPE read it. */
export const INT_IDENTITY = { type: FIELD_TYPE.int, typeId: 1, ffcvClass: 'IntField' } as const satisfies FieldIdentity;

/** IntField (type 1): a signed 64-bit value in the metadata record. Decodes to bigint. */
export class IntField extends TypedField<bigint> {
  readonly metadata = { size: 8, align: 8 };
  readonly pointerOffset = null;

  constructor() {
    super(INT_IDENTITY);
  }

  toSpec(): FieldSpec {
    return { type: this.type };
  }

  encode(value: unknown): EncodedValue {
    let b: bigint;
    if (typeof value === 'bigint') b = value;
    else if (typeof value === 'number' && Number.isInteger(value)) b = BigInt(value);
    else if (typeof value === 'boolean') b = value ? 1n : 0n;
    else throw new BetonEncodeError('BAD_VALUE', `IntField expects an integer, got ${describeValue(value)}`);
    if (b < I64_MIN || b > I64_MAX) throw new BetonEncodeError('BAD_VALUE', `IntField value ${b} does not fit in int64`);
    const meta = new Uint8Array(8);
    new DataView(meta.buffer).setBigInt64(0, b, true);
    return { meta, heap: null };
  }

  decode(meta: DataView): bigint {
    return meta.getBigInt64(0, true);
  }
}

/** int: one int64 per sample; the decoder copies it straight from the metadata table. */
export const INT_TYPE: FieldType<IntField> = {
  ...INT_IDENTITY,
  fromSpec: () => new IntField(),
  decoders: {
    int: () => ({
      output: { shape: [1], dtype: 'int64' },
      copiesMetadata: 8,
      decode: (m, _h, d) => ((d as BigInt64Array)[0] = m.getBigInt64(0, true)),
    }),
  },
  defaultDecoder: { decoder: 'int' },
  preview: (v) => ({ kind: 'text', text: String(v) }),
  canonical: (v) => (v as bigint).toString(),
  python: { field: () => `${INT_IDENTITY.ffcvClass}()`, decoders: { int: () => 'IntDecoder()' } },
};

import { BetonEncodeError } from '../format/errors.js';
import { describeValue, TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import type { FieldType } from './field-type.js';
import { floatRepr } from './python-json.js';
import { FIELD_TYPE } from '../api/constants.js';

/** float's identity, declared once: FloatField and FLOAT_TYPE read it. */
export const FLOAT_IDENTITY = { type: FIELD_TYPE.float, typeId: 0, ffcvClass: 'FloatField' } as const satisfies FieldIdentity;

/** FloatField (type 0): an IEEE-754 binary64 value in the metadata record. */
export class FloatField extends TypedField<number> {
  readonly metadata = { size: 8, align: 8 };
  readonly pointerOffset = null;

  constructor() {
    super(FLOAT_IDENTITY);
  }

  toSpec(): FieldSpec {
    return { type: this.type };
  }

  encode(value: unknown): EncodedValue {
    let x: number;
    if (typeof value === 'number') x = value;
    else if (typeof value === 'bigint') x = Number(value);
    else if (typeof value === 'boolean') x = Number(value);
    else throw new BetonEncodeError('BAD_VALUE', `FloatField expects a number, got ${describeValue(value)}`);
    const meta = new Uint8Array(8);
    new DataView(meta.buffer).setFloat64(0, x, true);
    return { meta, heap: null };
  }

  decode(meta: DataView): number {
    return meta.getFloat64(0, true);
  }
}

/** float: one float64 per sample; dumped as its bit pattern so NaN payloads and -0 survive. */
export const FLOAT_TYPE: FieldType<FloatField> = {
  ...FLOAT_IDENTITY,
  fromSpec: () => new FloatField(),
  decoders: {
    float: () => ({
      output: { shape: [1], dtype: 'float64' },
      copiesMetadata: 8,
      decode: (m, _h, d) => ((d as Float64Array)[0] = m.getFloat64(0, true)),
    }),
  },
  defaultDecoder: { decoder: 'float' },
  preview: (v) => ({ kind: 'text', text: floatRepr(v as number) }),
  canonical: (v) => {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, v as number);
    return { f64_bits: b.getBigUint64(0).toString(16).padStart(16, '0'), repr: floatRepr(v as number) };
  },
  python: { field: () => `${FLOAT_IDENTITY.ffcvClass}()`, decoders: { float: () => 'FloatDecoder()' } },
};

import { BetonEncodeError } from '../format/errors.js';
import { describeValue, Field, type EncodedValue, type FieldSpec } from './field.js';

/** FloatField (type 0): an IEEE-754 binary64 value in the metadata record. */
export class FloatField extends Field<number> {
  readonly typeId = 0;
  readonly type = 'float';
  readonly ffcvClass = 'FloatField';
  readonly metadata = { size: 8, align: 8 };
  readonly pointerOffset = null;

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

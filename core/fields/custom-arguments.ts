import { FIELD_ARGS_SIZE } from '../format/constants.js';
import { BetonEncodeError } from '../format/errors.js';
import type { FieldSpec } from './field.js';

/** FFCV's type id for fields it does not know: the reader needs a handler (custom_fields). */
export const CUSTOM_TYPE_ID = 255;
/** Marks descriptor arguments written by Beton Studio's custom fields: "BTSF" + u16 length + JSON spec. */
const CUSTOM_MAGIC = [0x42, 0x54, 0x53, 0x46];

/** Argument blob for a custom (type 255) field: our magic, then its spec as JSON. */
export function customArguments(spec: FieldSpec): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(spec));
  if (text.byteLength > FIELD_ARGS_SIZE - 6)
    throw new BetonEncodeError(
      'BAD_SCHEMA',
      `custom field spec is ${text.byteLength} bytes; at most ${FIELD_ARGS_SIZE - 6} fit in the descriptor`,
    );
  const out = new Uint8Array(FIELD_ARGS_SIZE);
  out.set(CUSTOM_MAGIC, 0);
  new DataView(out.buffer).setUint16(4, text.byteLength, true);
  out.set(text, 6);
  return out;
}

/** The spec a custom field's argument blob carries, or null when the blob is not ours. */
export function parseCustomArguments(args: Uint8Array): FieldSpec | null {
  if (!CUSTOM_MAGIC.every((b, i) => args[i] === b)) return null;
  const len = new DataView(args.buffer, args.byteOffset, args.byteLength).getUint16(4, true);
  try {
    const spec = JSON.parse(new TextDecoder().decode(args.subarray(6, 6 + len))) as FieldSpec;
    return typeof spec?.type === 'string' ? spec : null;
  } catch {
    return null;
  }
}

import { BetonEncodeError } from '../format/errors.js';
import { BYTES_METADATA, bytesDecoder, bytesMeta, maxBytesStats } from './bytes-field.js';
import type { FieldType } from './field-type.js';
import { TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import { parsePythonJson, pythonJsonDumps } from './python-json.js';
import { FIELD_TYPE } from '../api/constants.js';

/** The decoded JSON value plus the exact stored text. */
export interface JsonValue {
  value: unknown;
  text: string;
}

/** json's identity, declared once: JSONField and JSON_TYPE read it. */
export const JSON_IDENTITY = { type: FIELD_TYPE.json, typeId: 5, ffcvClass: 'JSONField' } as const satisfies FieldIdentity;

/**
 * JSONField (type 5): `json.dumps(value) + "\0"` as ASCII bytes on the heap, the NUL
 * counted in the stored size. Same metadata as BytesField.
 */
export class JSONField extends TypedField<unknown> {
  readonly metadata = BYTES_METADATA;
  readonly pointerOffset = 0;

  constructor() {
    super(JSON_IDENTITY);
  }

  toSpec(): FieldSpec {
    return { type: this.type };
  }

  encode(value: unknown): EncodedValue {
    let text: string;
    try {
      text = pythonJsonDumps(value);
    } catch (e) {
      throw new BetonEncodeError('BAD_VALUE', `JSONField cannot serialise the value: ${(e as Error).message}`);
    }
    // ensure_ascii makes the text pure ASCII, so one char = one byte.
    const heap = new Uint8Array(text.length + 1);
    for (let i = 0; i < text.length; i++) heap[i] = text.charCodeAt(i);
    return { meta: bytesMeta(heap.byteLength), heap };
  }

  override heapSize(meta: DataView): number {
    return Number(meta.getBigUint64(8, true));
  }

  /** Everything before the first NUL, parsed as Python's json.loads would. */
  decode(_meta: DataView, heap: Uint8Array | null): unknown {
    return parsePythonJson(JSONField.text(heap));
  }

  static text(heap: Uint8Array | null): string {
    if (!heap) return '';
    let end = heap.indexOf(0);
    if (end < 0) end = heap.byteLength;
    return new TextDecoder().decode(heap.subarray(0, end));
  }
}

/** json: read by the loader as its stored bytes (FFCV's BytesDecoder), dumped with the stored text's hash. */
export const JSON_TYPE: FieldType<JSONField> = {
  ...JSON_IDENTITY,
  fromSpec: () => new JSONField(),
  decoders: { bytes: bytesDecoder },
  defaultDecoder: { decoder: 'bytes' },
  stats: maxBytesStats,
  canonical: (v, t) => {
    const stored = t.storedBytes();
    return { value: t.jsonSafe(v), size: stored.byteLength, sha256: t.sha256(stored) };
  },
  python: { field: () => `${JSON_IDENTITY.ffcvClass}()`, decoders: { bytes: () => 'BytesDecoder()' } },
};

import { FIELD_ARGS_SIZE } from '../format/constants.js';
import type { FieldDescriptor } from '../format/descriptor.js';
import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { BytesField } from './bytes-field.js';
import type { Field, FieldSpec } from './field.js';
import { FloatField } from './float-field.js';
import { IntField } from './int-field.js';
import { JSONField } from './json-field.js';
import { NDArrayField, TorchTensorField } from './ndarray-field.js';
import { RGBImageField, type RGBImageFieldOptions } from './rgb-image-field.js';
import { VideoClipField, type VideoClipFieldOptions } from './video-clip-field.js';

export const CUSTOM_TYPE_ID = 255;
/** Marks descriptor arguments written by Beton Studio's custom fields: "BTSF" + u16 length + JSON spec. */
const CUSTOM_MAGIC = [0x42, 0x54, 0x53, 0x46];

/** How to build a field from a spec (build configs, workers) and from a file's descriptor. */
export interface FieldType {
  type: string;
  typeId: number;
  fromSpec(spec: FieldSpec): Field;
  /** Built-ins parse their own argument blob; custom types get their spec back from ours. */
  fromArguments?(args: Uint8Array, where: string): Field;
}

const byName = new Map<string, FieldType>();
const byId = new Map<number, FieldType>();

export function registerFieldType(ft: FieldType): void {
  if (byName.has(ft.type)) throw new BetonEncodeError('BAD_SCHEMA', `field type "${ft.type}" is already registered`);
  byName.set(ft.type, ft);
  if (ft.typeId !== CUSTOM_TYPE_ID) byId.set(ft.typeId, ft);
}

export function registeredFieldTypes(): string[] {
  return [...byName.keys()];
}

export function fieldFromSpec(spec: FieldSpec): Field {
  const ft = byName.get(spec.type);
  if (!ft) throw new BetonEncodeError('BAD_SCHEMA', `unknown field type "${spec.type}"; known: ${[...byName.keys()].join(', ')}`);
  return ft.fromSpec(spec);
}

/** Argument blob for a custom (type 255) field: our magic, then its spec as JSON. */
export function customArguments(spec: FieldSpec): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(spec));
  if (text.byteLength > FIELD_ARGS_SIZE - 6) throw new BetonEncodeError('BAD_SCHEMA', `custom field spec is ${text.byteLength} bytes; at most ${FIELD_ARGS_SIZE - 6} fit in the descriptor`);
  const out = new Uint8Array(FIELD_ARGS_SIZE);
  out.set(CUSTOM_MAGIC, 0);
  new DataView(out.buffer).setUint16(4, text.byteLength, true);
  out.set(text, 6);
  return out;
}

function parseCustomArguments(args: Uint8Array): FieldSpec | null {
  if (!CUSTOM_MAGIC.every((b, i) => args[i] === b)) return null;
  const len = new DataView(args.buffer, args.byteOffset, args.byteLength).getUint16(4, true);
  try {
    const spec = JSON.parse(new TextDecoder().decode(args.subarray(6, 6 + len))) as FieldSpec;
    return typeof spec?.type === 'string' ? spec : null;
  } catch {
    return null;
  }
}

/**
 * Rebuilds a field from a descriptor. Custom fields (255) resolve, in order, from the
 * caller's `custom` map (by field name, as FFCV's custom_fields) or from our own
 * argument blob and the registry.
 */
export function fieldFromDescriptor(d: FieldDescriptor, custom: Record<string, Field> = {}, file = '<buffer>'): Field {
  const where = `${file}: field "${d.name}"`;
  const given = custom[d.name];
  if (given) return given;
  if (d.typeId === CUSTOM_TYPE_ID) {
    const spec = parseCustomArguments(d.arguments);
    const ft = spec ? byName.get(spec.type) : undefined;
    if (spec && ft) return ft.fromSpec(spec);
    throw new BetonFormatError(
      'UNKNOWN_FIELD_TYPE',
      `${where} is a custom field (type 255)${spec ? ` of type "${spec.type}", which is not registered` : ''}; pass a handler with customFields: { ${d.name}: … }`,
      { file },
    );
  }
  const ft = byId.get(d.typeId);
  if (!ft) throw new BetonFormatError('UNKNOWN_FIELD_TYPE', `${where} has unknown type id ${d.typeId}; the file is corrupt or from a newer FFCV`, { file });
  return ft.fromArguments ? ft.fromArguments(d.arguments, where) : ft.fromSpec({ type: ft.type });
}

const num = (spec: FieldSpec, k: string): number | null | undefined => spec[k] as number | null | undefined;

registerFieldType({ type: 'float', typeId: 0, fromSpec: () => new FloatField() });
registerFieldType({ type: 'int', typeId: 1, fromSpec: () => new IntField() });
registerFieldType({
  type: 'rgb_image',
  typeId: 2,
  fromSpec: (s) =>
    new RGBImageField({
      writeMode: s.writeMode as RGBImageFieldOptions['writeMode'],
      maxResolution: num(s, 'maxResolution'),
      smartThreshold: num(s, 'smartThreshold'),
      jpegQuality: num(s, 'jpegQuality') ?? undefined,
      compressProbability: num(s, 'compressProbability') ?? undefined,
      passThrough: s.passThrough === true,
    }),
});
registerFieldType({ type: 'bytes', typeId: 3, fromSpec: () => new BytesField() });
registerFieldType({
  type: 'ndarray',
  typeId: 4,
  fromSpec: (s) => new NDArrayField({ dtype: String(s.dtype), shape: s.shape as number[] }),
  fromArguments: (a, where) => new NDArrayField(NDArrayField.parseArguments(a, where)),
});
registerFieldType({ type: 'json', typeId: 5, fromSpec: () => new JSONField() });
registerFieldType({
  type: 'torch_tensor',
  typeId: 6,
  fromSpec: (s) => new TorchTensorField({ dtype: String(s.dtype), shape: s.shape as number[] }),
  fromArguments: (a, where) => new TorchTensorField(NDArrayField.parseArguments(a, where)),
});
// Custom (type 255): a clip of frames per sample; options travel in our argument blob.
registerFieldType({
  type: 'video_clip',
  typeId: CUSTOM_TYPE_ID,
  fromSpec: (s) =>
    new VideoClipField({
      writeMode: s.writeMode as VideoClipFieldOptions['writeMode'],
      jpegQuality: num(s, 'jpegQuality') ?? undefined,
      maxResolution: num(s, 'maxResolution'),
      frames: num(s, 'frames'),
    }),
});

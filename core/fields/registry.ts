import type { FieldDescriptor } from '../format/descriptor.js';
import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { BYTES_TYPE } from './bytes-field.js';
import { CUSTOM_TYPE_ID, parseCustomArguments } from './custom-arguments.js';
import type { Field, FieldSpec } from './field.js';
import type { FieldType } from './field-type.js';
import { FLOAT_TYPE } from './float-field.js';
import { INT_TYPE } from './int-field.js';
import { JSON_TYPE } from './json-field.js';
import { NDARRAY_TYPE, TORCH_TENSOR_TYPE } from './ndarray-field.js';
import { RGB_IMAGE_TYPE } from './rgb-image-type.js';
import { VIDEO_CLIP_TYPE } from './video-clip-type.js';
import { ownValue } from '../format/own-keys.js';

export { CUSTOM_TYPE_ID, customArguments } from './custom-arguments.js';
export type { FieldType } from './field-type.js';

/**
 * The one extension point for field types: everything generic (writer, reader, loader,
 * dump, preview, export) finds a type's meaning here by its name. Field files do not
 * import this module (it imports them), so there is no cycle.
 */
const byName = new Map<string, FieldType>();
const byId = new Map<number, FieldType>();
/** Modules that register field types at runtime: worker threads import them at start. */
const modules = new Set<string>();

export interface RegisterOptions {
  /**
   * URL of the module that makes this registration (pass `import.meta.url`). The loader's
   * decode workers and the writer's encode workers import it at start, so the type exists
   * in their threads too. Leave it out only for types used on the calling thread alone.
   */
  module?: string;
}

export function registerFieldType(ft: FieldType, opts: RegisterOptions = {}): void {
  if (byName.has(ft.type)) throw new BetonEncodeError('BAD_SCHEMA', `field type "${ft.type}" is already registered`);
  byName.set(ft.type, ft);
  if (ft.typeId !== CUSTOM_TYPE_ID) byId.set(ft.typeId, ft);
  if (opts.module) modules.add(opts.module);
}

/** Every registered type, built-ins first (decoder lookups, exports). */
export function allFieldTypes(): FieldType[] {
  return [...byName.values()];
}

/** Modules that registered field types (given `module`) and any `extra` ones: what worker threads import at start. */
export function registeredFieldModules(extra: readonly string[] = []): string[] {
  return [...new Set([...modules, ...extra])];
}

/** The registered type of this name, or undefined. */
export function findFieldType(type: string): FieldType | undefined {
  return byName.get(type);
}

/** The registered type of this name; an unknown name is a schema error that lists the known ones. */
export function fieldType(type: string): FieldType {
  const ft = byName.get(type);
  if (!ft) throw new BetonEncodeError('BAD_SCHEMA', `unknown field type "${type}"; known: ${[...byName.keys()].join(', ')}`);
  return ft;
}

export function fieldFromSpec(spec: FieldSpec): Field {
  return fieldType(spec.type).fromSpec(spec);
}

/**
 * Rebuilds a field from a descriptor. Custom fields (255) resolve, in order, from the
 * caller's `custom` map (by field name, as FFCV's custom_fields) or from our own
 * argument blob and the registry.
 */
export function fieldFromDescriptor(d: FieldDescriptor, custom: Record<string, Field> = {}, file = '<buffer>'): Field {
  const where = `${file}: field "${d.name}"`;
  const given = ownValue(custom, d.name) as Field | undefined;
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
  if (!ft)
    throw new BetonFormatError('UNKNOWN_FIELD_TYPE', `${where} has unknown type id ${d.typeId}; the file is corrupt or from a newer FFCV`, {
      file,
    });
  return ft.fromArguments ? ft.fromArguments(d.arguments, where) : ft.fromSpec({ type: ft.type });
}

for (const ft of [
  FLOAT_TYPE,
  INT_TYPE,
  RGB_IMAGE_TYPE,
  BYTES_TYPE,
  NDARRAY_TYPE,
  JSON_TYPE,
  TORCH_TENSOR_TYPE,
  VIDEO_CLIP_TYPE,
] as FieldType[])
  registerFieldType(ft);

import { validateFieldName } from '../format/descriptor.js';
import { BetonEncodeError } from '../format/errors.js';
import type { Field, FieldSpec } from './field.js';
import { fieldFromSpec } from './registry.js';

export interface NamedField {
  name: string;
  field: Field;
}

/** Fields in file order. An object works too (insertion order), or an explicit list. */
export type Schema = Record<string, Field> | ReadonlyArray<NamedField> | ReadonlyArray<readonly [string, Field]>;

export function normalizeSchema(schema: Schema): NamedField[] {
  let list: NamedField[];
  if (Array.isArray(schema)) {
    list = (schema as ReadonlyArray<NamedField | readonly [string, Field]>).map((e) =>
      Array.isArray(e) ? { name: e[0] as string, field: e[1] as Field } : (e as NamedField),
    );
  } else {
    list = Object.entries(schema as Record<string, Field>).map(([name, field]) => ({ name, field }));
  }
  if (list.length === 0) throw new BetonEncodeError('BAD_SCHEMA', 'a schema needs at least one field');
  if (list.length > 65535) throw new BetonEncodeError('BAD_SCHEMA', 'at most 65535 fields fit in the header');
  const seen = new Set<string>();
  for (const { name } of list) {
    validateFieldName(name);
    if (seen.has(name)) throw new BetonEncodeError('BAD_SCHEMA', `field name "${name}" appears twice`, { field: name });
    seen.add(name);
  }
  return list;
}

export function schemaFromSpecs(specs: ReadonlyArray<{ name: string; spec: FieldSpec }>): NamedField[] {
  return specs.map(({ name, spec }) => ({ name, field: fieldFromSpec(spec) }));
}

import type { NamedField } from '../fields/schema.js';
import { BetonEncodeError } from '../format/errors.js';
import { fieldFromSpec } from '../fields/registry.js';

/**
 * Encode workers rebuild every field from its spec through the registry (a Field object
 * cannot cross threads). A field whose class is not what the registry builds for its type
 * (a user's subclass of IntField overriding `encode`, or an instance with its own `encode`)
 * would silently be encoded by the base class in the workers: `[1, 2, 3]` stored where the
 * subclass meant `[2, 4, 6]`, a throwing encode that never throws. Such a field is refused
 * before any work, saying how to make it run in the workers. Registered types pass: the
 * registry builds their own class, and the workers import the module that registers them.
 */
export function assertWorkerFields(fields: readonly NamedField[]): void {
  for (const { name, field } of fields) {
    let rebuilt;
    try {
      rebuilt = fieldFromSpec(field.toSpec());
    } catch {
      rebuilt = null;
    }
    const ownEncode = Object.hasOwn(field, 'encode');
    if (rebuilt && Object.getPrototypeOf(rebuilt) === Object.getPrototypeOf(field) && !ownEncode) continue;
    const cls = (field.constructor as { name?: string }).name || 'an anonymous class';
    const what = ownEncode
      ? `has its own encode() set on the instance`
      : `is a ${cls}, which the field registry does not build for type "${field.type}"`;
    throw new BetonEncodeError(
      'BAD_SCHEMA',
      `field "${name}" ${what}: the writer's worker threads rebuild fields from the registry and would encode it as a plain ${field.type} field. ` +
        `Give the class its own type name and register it with registerFieldType(MY_TYPE, { module: import.meta.url }) (docs/fields.md, "Adding a field type"), or write with numWorkers: 0`,
      { field: name },
    );
  }
}

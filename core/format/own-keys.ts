/**
 * Maps keyed by names users choose (field names, CSV headers, JSONL keys, config keys).
 * A plain object looks a missing key up its prototype (`obj['toString']` is a function,
 * `obj['constructor']` is Object) and `obj['__proto__'] = v` replaces the prototype instead
 * of storing v: a field named so is lost or read as garbage. These two helpers are the only
 * way core reads and writes such a record: an own property, or nothing.
 */

/** The value `obj` holds under `key` itself, never one inherited from Object.prototype. */
export function ownValue(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Stores `value` as `obj`'s own `key` (`__proto__` included: a plain entry, not the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  // `__proto__` is the one key whose assignment reaches a setter (Object.prototype's); any
  // other assignment makes an own, enumerable, writable entry, and costs a tenth of
  // defineProperty (the loader sets an entry per output per batch).
  if (key !== '__proto__') obj[key] = value;
  else Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

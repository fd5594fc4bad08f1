/**
 * "State follows its inputs": a value computed from some inputs (generated code, an error a
 * request answered) is stored with the key of those inputs, and shown only while the inputs
 * still have that key. A screen never shows the answer to a question no longer asked, and no
 * setter has to remember which values to clear when an input changes.
 */
export interface Keyed<T> {
  key: string;
  value: T;
}

/** A stable key for plain data (form values, configs): equal inputs, equal keys. */
export function keyOf(...inputs: unknown[]): string {
  return JSON.stringify(inputs, (_k, v: unknown) => (v === undefined ? null : v));
}

/** The value when it belongs to `key`, else null. */
export function valueFor<T>(k: Keyed<T> | null | undefined, key: string): T | null {
  return k && k.key === key ? k.value : null;
}

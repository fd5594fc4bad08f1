/**
 * Text that came from a user's data (a field name in a .beton header, a CSV column, a file
 * name) made safe to print on a terminal. Control bytes (ESC starts the sequences that move
 * the cursor, retitle the window or rewrite the screen; C1 controls such as U+009B CSI do
 * the same on many terminals) and the bidirectional overrides that reorder what is shown are
 * written as visible escapes (`\x1b`, `\u202e`), so a name shows what it holds and does not
 * act on the terminal. Every CLI line that shows such text goes through one of these.
 */

// C0 and DEL and C1, and the bidi embedding/override/isolate marks. \n and \t are kept by printableText.
const UNSAFE_NAME = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => {
  const n = c.charCodeAt(0);
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** One name (a field, a column, a path): every control byte escaped, newlines and tabs included. */
export function printable(name: string): string {
  return name.replace(UNSAFE_NAME, escape);
}

/** A message of our own that may quote names: as printable(), but its own newlines and tabs stay. */
export function printableText(text: string): string {
  return text.replace(UNSAFE_TEXT, escape);
}

/**
 * JSON text (JSON.stringify's output) with the characters it leaves raw but a terminal acts
 * on (DEL, C1, bidi marks) written as \u escapes: the same JSON value, safe to print.
 */
export function printableJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A value read back from storage (a run, a comparison) with every string in it made printable,
 * so that a formatter may add escape codes of its own (colours) to text that holds none.
 */
export function printableValues<T>(value: T): T {
  if (typeof value === 'string') return printableText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => printableValues(v)) as T;
  // fromEntries defines own keys: a stored key named "__proto__" stays a key, not a prototype.
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableValues(v)])) as T;
  return value;
}

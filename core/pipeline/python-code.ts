/**
 * A string as a Python string literal: double-quoted, with the backslash, the quote and every
 * character outside printable ASCII written as an escape (\n, \xNN, \uNNNN, \UNNNNNNNN).
 * Not JSON.stringify, whose output is only mostly Python, and never a string pasted between
 * quotes: a path holding a newline or a quote must stay one valid literal, on one line.
 */
export function pyStr(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c < 0x100) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** A JavaScript value as a Python literal, for generated code (tuples for arrays). */
export const py = (v: unknown): string => {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return pyStr(v);
  if (Array.isArray(v)) return `(${v.map(py).join(', ')}${v.length === 1 ? ',' : ''})`;
  return JSON.stringify(v);
};

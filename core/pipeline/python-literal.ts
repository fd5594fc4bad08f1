/** A Python literal for a JSON-like value (None/True/False, tuples for arrays), for generated FFCV code. */
export function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `(${v.map(pyLiteral).join(', ')}${v.length === 1 ? ',' : ''})`;
  return JSON.stringify(v);
}

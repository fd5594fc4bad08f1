/** A JavaScript value as a Python literal, for generated code (tuples for arrays). */
export const py = (v: unknown): string => {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `(${v.map(py).join(', ')}${v.length === 1 ? ',' : ''})`;
  return JSON.stringify(v);
};

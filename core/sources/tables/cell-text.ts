import type { NDArray } from '../../fields/ndarray-field.js';

/**
 * What a source cell holds, told from its text or its shape: missing values (pandas'
 * spellings), integer, float, number and boolean text, an NDArray, Hugging Face's encoded
 * image struct. Schema inference (infer-schema.ts) decides a column's type with these; the
 * coercions (value-coercion.ts, element-writer.ts) convert with them.
 */

/** Cells pandas reads as missing (na_values defaults); numeric fields read them as NaN. */
const NA_TEXT = new Set([
  '',
  '#N/A',
  '#N/A N/A',
  '#NA',
  '-1.#IND',
  '-1.#QNAN',
  '-NaN',
  '-nan',
  '1.#IND',
  '1.#QNAN',
  '<NA>',
  'N/A',
  'NA',
  'NULL',
  'NaN',
  'None',
  'n/a',
  'nan',
  'null',
]);

export function isMissing(v: unknown): boolean {
  return v === undefined || v === null;
}

export function isNAText(s: string): boolean {
  return NA_TEXT.has(s.trim());
}

/** "12", "-3", "+7" → number (bigint beyond 2^53), else null. */
export function parseIntText(s: string): number | bigint | null {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : BigInt(t);
}

/** Decimal/scientific text, inf/nan spellings → number, else null. */
export function parseFloatText(s: string): number | null {
  const t = s.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const l = t.toLowerCase();
  if (l === 'nan' || l === '-nan' || l === '+nan') return NaN;
  if (l === 'inf' || l === '+inf' || l === 'infinity' || l === '+infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  return null;
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INT_TEXT = /^[+-]?\d+$/;

/** Any numeric text (integers beyond 2^53 as exact bigints), or null. The hot path of CSV arrays. */
export function parseNumberText(s: string): number | bigint | null {
  const t = s.length > 0 && (s.charCodeAt(0) <= 32 || s.charCodeAt(s.length - 1) <= 32) ? s.trim() : s;
  if (NUMBER_TEXT.test(t)) {
    const n = Number(t);
    return Number.isInteger(n) && !Number.isSafeInteger(n) && INT_TEXT.test(t) ? BigInt(t) : n;
  }
  return parseFloatText(t);
}

/** pandas' boolean spellings. */
export function parseBoolText(s: string): boolean | null {
  const t = s.trim();
  if (t === 'True' || t === 'true' || t === 'TRUE') return true;
  if (t === 'False' || t === 'false' || t === 'FALSE') return false;
  return null;
}

export function isNDArrayValue(v: unknown): v is NDArray {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as NDArray).bytes instanceof Uint8Array &&
    typeof (v as NDArray).dtype === 'string' &&
    Array.isArray((v as NDArray).shape)
  );
}

/** Hugging Face's image struct: `{ bytes, path }` with the encoded file in `bytes`. */
export function isImageBytes(v: unknown): v is { bytes: Uint8Array; path?: unknown } {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && !isNDArrayValue(v) && (v as { bytes?: unknown }).bytes instanceof Uint8Array
  );
}

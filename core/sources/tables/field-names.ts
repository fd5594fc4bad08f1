import { FIELD_NAME_SIZE } from '../../format/constants.js';

/**
 * Field names as the format stores them: ASCII, at most 16 characters, unique. A column
 * name that already fits is kept verbatim (no surprise renames); others are transliterated
 * to [A-Za-z0-9_], shortened, and de-duplicated with a numeric suffix. Callers record the
 * original column in the field's `columns`.
 */
export function fitsFieldName(name: string): boolean {
  return name.length > 0 && name.length <= FIELD_NAME_SIZE && /^[\x20-\x7e]+$/.test(name);
}

/** A valid field name derived from any column name (not yet unique). */
export function sanitizeFieldName(name: string, fallback: string): string {
  if (fitsFieldName(name)) return name;
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents left behind by NFKD
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const short = ascii.slice(0, FIELD_NAME_SIZE).replace(/_+$/, '');
  return short || fallback;
}

/** Valid, unique names for `wanted` in order; earlier entries keep their name on a clash. */
export function uniqueFieldNames(wanted: readonly string[]): string[] {
  const taken = new Set<string>();
  return wanted.map((w, i) => {
    let name = sanitizeFieldName(w, `col${i}`);
    for (let k = 2; taken.has(name); k++) {
      const suffix = `_${k}`;
      name = `${sanitizeFieldName(w, `col${i}`).slice(0, FIELD_NAME_SIZE - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}

import { BetonEncodeError } from '../../format/errors.js';
import type { TableReader } from '../common/table-reader.js';
import { isNAText } from './cell-text.js';
import { ValueProblem } from './value-coercion.js';

/**
 * A string column as an integer label (category → int): the categories in label order, each
 * value stored as its index. The list is part of the build config (fields[i].categories), so
 * the mapping travels with the dataset's recipe and a rebuild or another shard maps alike.
 */

/** At most this many distinct values make a label column; more is an identifier, not a class. */
export const MAX_CATEGORIES = 65536;

/** value → its index in `categories`; a value not listed is a bad value naming what is expected. */
export function categoryMapper(categories: readonly string[]): (v: unknown) => number {
  const index = new Map(categories.map((c, i) => [c, i]));
  const shown =
    categories
      .slice(0, 8)
      .map((c) => JSON.stringify(c))
      .join(', ') + (categories.length > 8 ? ', …' : '');
  return (v) => {
    const key =
      typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : null;
    if (key === null)
      throw new ValueProblem(
        `expected one of the ${categories.length} categories (${shown}), got ${v === null || v === undefined ? 'a missing value' : typeof v}`,
      );
    const i = index.get(key);
    if (i === undefined)
      throw new ValueProblem(
        `${JSON.stringify(key)} is not one of the ${categories.length} categories (${shown}); add it to the field's categories, or build with --on-error skip`,
      );
    return i;
  };
}

/**
 * The distinct values of one column, sorted (as ImageFolder sorts its class folders), read
 * over every row. Missing cells are left out; a column of more than MAX_CATEGORIES values is
 * refused.
 */
export async function distinctCategories(reader: TableReader, column: string): Promise<{ categories: string[]; rows: number }> {
  const c = reader.columns.indexOf(column);
  if (c < 0)
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `${reader.path}: no column "${column}"; the columns are ${reader.columns.slice(0, 20).join(', ')}`,
      { source: reader.path },
    );
  const seen = new Set<string>();
  let rows = 0;
  for await (const row of reader.rows({ start: 0, end: Infinity }, [c])) {
    rows++;
    const v = row.values[c];
    if (v === undefined || v === null) continue;
    const s =
      typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : null;
    if (s === null)
      throw new BetonEncodeError(
        'BAD_VALUE',
        `${reader.path}: row ${row.index}, column "${column}" holds ${typeof v} values, not categories; keep it as a json field`,
        { source: reader.path, sample: row.index },
      );
    if (reader.textual && isNAText(s)) continue;
    seen.add(s);
    if (seen.size > MAX_CATEGORIES)
      throw new BetonEncodeError(
        'BAD_VALUE',
        `${reader.path}: column "${column}" has more than ${MAX_CATEGORIES} distinct values: an identifier, not a label; keep it as a json or bytes field`,
        { source: reader.path },
      );
  }
  return { categories: [...seen].sort(), rows };
}

/**
 * The categories of a table's label column, as the Sources screen asks for them
 * (`sources.categories`) to show which names become which class numbers.
 */
import type { TABLE_FORMATS } from '../api/constants.js';
import { distinctCategories } from '../sources/tables/label-mapping.js';
import { openTableReader } from '../sources/tables/open-table.js';

/** The distinct values of `column` in the table at `path` (already confined), with the rows read. */
export async function tableCategories(
  path: string,
  column: string,
  format?: (typeof TABLE_FORMATS)[number],
): Promise<{ column: string; categories: string[]; rows: number }> {
  const reader = await openTableReader(path, format);
  return { column, ...(await distinctCategories(reader, column)) };
}

import { NDArrayField } from '../fields/ndarray-field.js';
import { Reader } from '../reader/reader.js';
import type { ExportField } from './python.js';

/**
 * The fields of a .beton file as the Python export needs them (video clip fields are custom
 * and need their Field class in FFCV; ndarray dtypes decide how FFCV can hold a batch).
 * undefined when the file cannot be opened: a config may be exported where its file is not.
 */
export async function exportFieldsOf(file: string): Promise<ExportField[] | undefined> {
  let reader: Reader;
  try {
    reader = await Reader.open(file);
  } catch {
    return undefined;
  }
  try {
    return reader.fields.map(({ name, field }) => ({
      name,
      type: field.type,
      ...(field instanceof NDArrayField ? { dtype: field.dtype.str } : {}),
    }));
  } finally {
    reader.close();
  }
}

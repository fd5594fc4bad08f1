import { BetonEncodeError } from '../../format/errors.js';
import { openTableReader, resolveTableFormat } from '../tables/open-table.js';
import { TableSource, type TableSourceOptions } from '../tables/table-source.js';
import type { TableReader } from '../common/table-reader.js';

export type ImageListFormat = 'csv' | 'tsv' | 'jsonl';

/**
 * A CSV/TSV/JSONL list of image paths (relative to the list's folder, or absolute) plus
 * label/attribute columns. The image column becomes an rgb_image field named `image`
 * (unless another column already has that name), other columns are inferred as in any
 * table, and further columns of image paths become image fields too (masks, pairs).
 * `opened` is the list's reader when detection already opened it (read again, not reopened).
 */
export async function openImageListSource(
  path: string,
  imageColumn: string,
  format?: ImageListFormat,
  opts: TableSourceOptions = {},
  opened?: TableReader,
): Promise<TableSource> {
  const f = resolveTableFormat(path, format);
  if (f !== 'csv' && f !== 'tsv' && f !== 'jsonl') {
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `${path}: an image list is a CSV, TSV or JSONL file, not ${f}; open it as a table and give its image column an rgb_image field`,
      { source: path },
    );
  }
  const reader = opened ?? (await openTableReader(path, f));
  if (!reader.columns.includes(imageColumn)) {
    throw new BetonEncodeError(
      'BAD_SCHEMA',
      `${path}: no image column "${imageColumn}"; the columns are ${reader.columns.map((c) => JSON.stringify(c)).join(', ')}`,
      { source: path },
    );
  }
  return new TableSource(reader, {
    detectImages: true,
    ...opts,
    kind: 'image_list',
    imageColumns: [imageColumn, ...(opts.imageColumns ?? []).filter((c) => c !== imageColumn)],
    imageFieldName: reader.columns.includes('image') ? undefined : 'image',
  });
}

import { extname } from 'node:path';
import { TABLE_FORMATS } from '../../api/build-config.js';
import { BetonEncodeError } from '../../format/errors.js';
import { CsvTable } from './csv-source.js';
import { JsonlTable } from './jsonl-source.js';
import { NpyTable } from '../npy/npy-source.js';
import { NpzTable } from '../npy/npz-source.js';
import { ParquetTable } from '../parquet/parquet-source.js';
import type { TableReader } from '../common/table-reader.js';
import { TableSource, type TableSourceOptions } from './table-source.js';

export type TableFormat = (typeof TABLE_FORMATS)[number];

const BY_EXTENSION: Record<string, TableFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.parquet': 'parquet',
  '.pq': 'parquet',
  '.npy': 'npy',
  '.npz': 'npz',
};

/** The table format a file's extension names, or null. */
export function tableFormatOf(path: string): TableFormat | null {
  return BY_EXTENSION[extname(path).toLowerCase()] ?? null;
}

/** The format to read `path` as: the explicit one, else the extension's; a clear error otherwise. */
export function resolveTableFormat(path: string, format?: TableFormat): TableFormat {
  const f = format ?? tableFormatOf(path);
  if (!f) {
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `${path}: cannot tell the table format from the extension "${extname(path)}"; use ${Object.keys(BY_EXTENSION).join(' ')} or set source.format (${TABLE_FORMATS.join(', ')})`,
      { source: path },
    );
  }
  return f;
}

export async function openTableReader(path: string, format?: TableFormat): Promise<TableReader> {
  switch (resolveTableFormat(path, format)) {
    case 'csv':
      return CsvTable.open(path, 'csv');
    case 'tsv':
      return CsvTable.open(path, 'tsv');
    case 'jsonl':
      return JsonlTable.open(path);
    case 'parquet':
      return ParquetTable.open(path);
    case 'npy':
      return NpyTable.open(path);
    case 'npz':
      return NpzTable.open(path);
  }
}

/** A table file as a DatasetSource (its fields inferred from the first rows). */
export async function openTableSource(path: string, format?: TableFormat, opts: TableSourceOptions = {}): Promise<TableSource> {
  return new TableSource(await openTableReader(path, format), opts);
}

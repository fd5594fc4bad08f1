import { basename, extname } from 'node:path';
import { fileByteReader } from './byte-reader.js';
import type { NpyHeader } from './npy-header.js';
import { npyColumnType, npyRows, readNpyHeader } from './npy-rows.js';
import type { ColumnType, RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { openRegular } from '../../native/regular-file.js';

/**
 * A .npy array: each index along axis 0 is a row, the single column is named after the
 * file (`labels.npy` → `labels`). The length comes from the header; rows are read with
 * positional reads in ~1 MiB batches, so a range starts with a seek.
 */
export class NpyTable implements TableReader {
  readonly kind = 'npy';
  readonly textual = false;
  readonly columns: readonly string[];
  readonly length: number;
  readonly declared: ReadonlyArray<ColumnType | undefined>;

  private constructor(
    readonly path: string,
    readonly header: NpyHeader,
    private readonly size: number,
  ) {
    this.columns = [basename(path, extname(path))];
    this.length = header.shape[0]!;
    this.declared = [npyColumnType(header, path)];
  }

  static async open(path: string): Promise<NpyTable> {
    const { fh } = await openRegular(path);
    try {
      const { size } = await fh.stat();
      const header = await readNpyHeader(fileByteReader(fh, 0, size), path);
      return new NpyTable(path, header, size);
    } finally {
      await fh.close();
    }
  }

  async sample(n: number): Promise<unknown[][]> {
    const out: unknown[][] = [];
    for await (const r of this.rows({ start: 0, end: n })) out.push([...r.values]);
    return out;
  }

  async *rows(range: RowRange): AsyncGenerator<TableRow> {
    const { fh } = await openRegular(this.path);
    const reader = fileByteReader(fh, this.header.dataOffset, this.size, true);
    try {
      let index = range.start;
      for await (const v of npyRows(reader, this.header, range.start, range.end, this.path)) yield { index: index++, values: [v] };
    } finally {
      await reader.close();
    }
  }

  sourceBytes(): number {
    return this.size;
  }
}

import * as zlib from 'node:zlib';
import {
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
  type AsyncBuffer,
  type Compressors,
  type FileMetaData,
  type RowGroup,
  type SchemaTree,
} from 'hyparquet';
import { BetonEncodeError, NotAFileError } from '../../format/errors.js';
import { parquetFailure } from './parquet-failure.js';
import { checkParquetPages } from './parquet-pages.js';
import type { ColumnType, LeafHint, RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { openRegular } from '../../native/regular-file.js';
import { MovedOutsideError } from '../../native/confined-opens.js';

/**
 * Row groups larger than this are read in slices, but only where the file has an offset
 * index (so hyparquet fetches just the pages of a slice); without one each slice would
 * re-read the whole column chunk, so the group is read at once.
 */
const SLICE_ROWS = 4096;
/** Rows sampled for the columns whose type the schema does not settle. */
const SAMPLE_ROWS = 256;

/**
 * Parquet via hyparquet: one row group (or slice of one) is decoded at a time and only
 * the columns a build uses are read. The length comes from the footer; a range skips
 * whole row groups without reading them. Snappy is built into hyparquet; gzip, brotli
 * (and zstd where node:zlib has it) are provided here.
 */
export class ParquetTable implements TableReader {
  readonly kind = 'parquet';
  readonly textual = false;
  readonly columns: readonly string[];
  readonly hints: ReadonlyArray<LeafHint | undefined>;
  readonly declared: ReadonlyArray<ColumnType | undefined>;
  readonly length: number;

  private constructor(
    readonly path: string,
    private readonly file: AsyncBuffer,
    private readonly metadata: FileMetaData,
  ) {
    const tree = parquetSchema(metadata);
    this.columns = tree.children.map((c) => c.element.name);
    this.hints = tree.children.map(leafHint);
    this.declared = tree.children.map((c) => declaredType(c, metadata));
    this.length = Number(metadata.num_rows);
  }

  static async open(path: string): Promise<ParquetTable> {
    try {
      const file = await fileBuffer(path);
      const metadata = await parquetMetadataAsync(file);
      return new ParquetTable(path, file, metadata);
    } catch (e) {
      if (e instanceof NotAFileError || e instanceof MovedOutsideError) throw e;
      throw new BetonEncodeError('BAD_OPTIONS', `${path}: cannot read Parquet metadata: ${parquetFailure(e)}`, { source: path });
    }
  }

  /** Only columns the schema leaves open (lists, structs, nullable ints), and few rows: values may be images. */
  async sample(n: number, columns?: readonly number[]): Promise<unknown[][]> {
    const out: unknown[][] = [];
    const cols = columns ?? this.columns.map((_, i) => i);
    for await (const r of this.rows({ start: 0, end: Math.min(n, SAMPLE_ROWS) }, cols)) out.push([...r.values]);
    return out;
  }

  async *rows(range: RowRange, needed: readonly number[]): AsyncGenerator<TableRow> {
    const cols = [...new Set(needed)].filter((c) => c >= 0 && c < this.columns.length).sort((a, b) => a - b);
    const names = cols.map((c) => this.columns[c]!);
    let groupStart = 0;
    for (const [g, group] of this.metadata.row_groups.entries()) {
      const groupEnd = groupStart + Number(group.num_rows);
      const from = Math.max(range.start, groupStart);
      const to = Math.min(range.end, groupEnd);
      groupStart = groupEnd;
      if (from >= to) continue;
      // hyparquet trusts page headers (a damaged one can make it loop forever): check them first.
      await checkParquetPages(this.file, group, names).catch((e: Error) => {
        throw new BetonEncodeError(
          'BAD_VALUE',
          `${this.path}: row group ${g}: ${e.message}; the file is damaged or cut short: check it with pyarrow (pq.read_table) or rewrite it`,
          { source: this.path },
        );
      });
      const step = hasOffsetIndex(group, names) ? SLICE_ROWS : to - from;
      for (let s = from; s < to; s += step) {
        const e = Math.min(to, s + step);
        const part = await this.read(names, s, e, step !== to - from);
        for (let k = 0; k < part.length; k++) {
          const values: unknown[] = new Array(this.columns.length);
          const got = part[k]!;
          cols.forEach((c, j) => (values[c] = got[j]));
          yield { index: s + k, values };
        }
      }
      if (groupEnd >= range.end) return;
    }
  }

  private async read(columns: string[], rowStart: number, rowEnd: number, useOffsetIndex: boolean): Promise<unknown[][]> {
    let rows: unknown[][] = [];
    try {
      await parquetRead({
        file: this.file,
        metadata: this.metadata,
        columns,
        rowStart,
        rowEnd,
        rowFormat: 'array',
        // Unannotated BYTE_ARRAY stays bytes (encoded images); UTF8/STRING columns still decode to strings.
        utf8: false,
        useOffsetIndex,
        compressors: COMPRESSORS,
        onComplete: (r: unknown[][]) => {
          rows = r;
        },
      });
    } catch (e) {
      throw new BetonEncodeError('BAD_VALUE', `${this.path}: rows ${rowStart}..${rowEnd - 1}: ${parquetFailure(e)}`, {
        source: this.path,
      });
    }
    return rows;
  }

  sourceBytes(): number {
    return this.file.byteLength;
  }
}

/**
 * The file as hyparquet's AsyncBuffer. Not hyparquet's asyncBufferFromFile: it opens the
 * path by itself for every slice, where a FIFO blocks and a folder swapped for a link is
 * followed; each slice here opens through openRegular (regular file, still inside the served
 * folders), reads, and closes.
 */
async function fileBuffer(path: string): Promise<AsyncBuffer> {
  const { fh, size } = await openRegular(path, 'Parquet file');
  await fh.close();
  return {
    byteLength: size,
    async slice(start: number, end = size): Promise<ArrayBuffer> {
      const { fh } = await openRegular(path, 'Parquet file');
      try {
        const out = new Uint8Array(Math.max(0, end - start));
        let done = 0;
        while (done < out.length) {
          const { bytesRead } = await fh.read(out, done, out.length - done, start + done);
          if (bytesRead === 0) throw new RangeError(`the file shrank while read (${size} bytes expected)`);
          done += bytesRead;
        }
        return out.buffer;
      } finally {
        await fh.close();
      }
    },
  };
}

function hasOffsetIndex(group: RowGroup, names: readonly string[]): boolean {
  const used = group.columns.filter((c) => names.includes(c.meta_data?.path_in_schema[0] ?? ''));
  return used.length > 0 && used.every((c) => c.offset_index_offset !== undefined);
}

/**
 * The field type a flat column's schema settles without looking at values: numbers,
 * strings, raw bytes. Integer and byte columns only when the statistics show no nulls
 * (a gap has no int form); nested, dated and decimal columns are left to sampling.
 */
function declaredType(t: SchemaTree, metadata: FileMetaData): ColumnType | undefined {
  if (t.children.length > 0) return undefined;
  const el = t.element;
  const ct = el.converted_type;
  const lt = el.logical_type?.type;
  const noNulls = (): boolean =>
    el.repetition_type === 'REQUIRED' ||
    metadata.row_groups.every((g) =>
      g.columns.some(
        (c) =>
          c.meta_data?.path_in_schema.length === 1 &&
          c.meta_data.path_in_schema[0] === el.name &&
          c.meta_data.statistics?.null_count === 0n,
      ),
    );
  if (el.type === 'FLOAT' || el.type === 'DOUBLE') return ct === undefined && lt === undefined ? { kind: 'float' } : undefined;
  if (el.type === 'INT32' || el.type === 'INT64' || el.type === 'BOOLEAN') {
    const plainInt = (ct === undefined || /^U?INT_/.test(ct)) && (lt === undefined || lt === 'INTEGER');
    return plainInt && noNulls() ? { kind: 'int' } : undefined;
  }
  if (el.type === 'BYTE_ARRAY') {
    if (ct === 'UTF8' || lt === 'STRING') return { kind: 'string' };
    if (ct === undefined && lt === undefined && noNulls()) return { kind: 'bytes' };
  }
  return undefined;
}

/** The number kind of a column's leaves (looking through LIST wrappers), when declared. */
function leafHint(t: SchemaTree): LeafHint | undefined {
  let node = t;
  while (node.children.length === 1) node = node.children[0]!;
  if (node.children.length > 1) return undefined;
  const el = node.element;
  const ct = el.converted_type;
  if (ct === 'DECIMAL' || ct === 'DATE' || ct?.startsWith('TIMESTAMP') || ct?.startsWith('TIME_')) return undefined;
  if (el.logical_type?.type === 'FLOAT16') return 'float';
  if (el.type === 'FLOAT' || el.type === 'DOUBLE') return 'float';
  if (el.type === 'INT32' || el.type === 'INT64' || el.type === 'BOOLEAN') return 'int';
  return undefined;
}

type Decompress = (input: Uint8Array, outputLength: number) => Uint8Array;

/** zstd joined node:zlib in Node 22.15; use it when this Node has it. */
const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;

const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

const COMPRESSORS: Compressors = {
  GZIP: ((input) => asBytes(zlib.gunzipSync(input))) as Decompress,
  BROTLI: ((input) => asBytes(zlib.brotliDecompressSync(input))) as Decompress,
  ...(zstd ? { ZSTD: ((input) => asBytes(zstd(input))) as Decompress } : {}),
};

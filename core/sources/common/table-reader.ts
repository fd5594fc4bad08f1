/**
 * The row-level view every table-like source shares (CSV/TSV, JSONL, Parquet, .npy, .npz,
 * image folders). A reader only knows its columns and how to stream rows; schema
 * inference (infer-schema.ts) and the column → field mapping (column-mapping.ts) are
 * written once on top of it, in TableSource.
 */

/** What the file itself says about a column, so inference does not have to guess. */
export type ColumnType =
  | { kind: 'int' }
  | { kind: 'float' }
  | { kind: 'string' }
  | { kind: 'bytes' }
  | { kind: 'json' }
  | { kind: 'image' }
  | { kind: 'ndarray'; dtype: string; shape: number[] };

/**
 * The leaf number kind a format declares for a column (Parquet's physical type): a FLOAT
 * column whose values happen to be whole must still infer as float.
 */
export type LeafHint = 'int' | 'float';

export interface TableRow {
  /** 0-based row number in the file (= sample index in the source). */
  index: number;
  /** One value per column, in column order; undefined for columns not read or absent. */
  values: readonly unknown[];
  /** 1-based line in a text file, for messages. */
  line?: number;
  /** Many files read as one table (many-tables.ts): the file this row is in, and its row there. */
  file?: string;
  fileIndex?: number;
}

export interface RowRange {
  start: number;
  end: number;
}

export interface TableReader {
  /** The source kind reported to users: 'csv', 'tsv', 'jsonl', 'parquet', 'npy', 'npz', … */
  readonly kind: string;
  readonly path: string;
  /** Column names in file order. */
  readonly columns: readonly string[];
  /** Row count when known without reading the data, else null. */
  readonly length: number | null;
  /** Every cell is text (CSV/TSV): inference reads numbers out of strings. */
  readonly textual: boolean;
  /** Per column: the type the file declares (npy dtypes), or undefined to infer from values. */
  readonly declared?: ReadonlyArray<ColumnType | undefined>;
  /** Per column: the declared leaf number kind (Parquet), or undefined. */
  readonly hints?: ReadonlyArray<LeafHint | undefined>;
  /**
   * The first `n` rows for schema inference (at most; columnar readers may take fewer, and
   * only the listed `columns`). May carry richer values than rows() (JSONL marks float
   * literals such as `1.0` with PyFloat) so int and float are told apart.
   */
  sample(n: number, columns?: readonly number[]): Promise<unknown[][]>;
  /**
   * Rows [range.start, range.end) in file order. `needed` lists the column indexes the
   * caller reads; columnar formats read only those (others may be left undefined).
   */
  rows(range: RowRange, needed: readonly number[]): AsyncIterable<TableRow>;
  /** Bytes of the file(s) read, for the build report. */
  sourceBytes(): number | null;
}

/** Clamps a requested range to a known length (end may be Infinity for "to the end"). */
export function clampRange(range: RowRange | undefined, length: number | null): RowRange {
  const start = Math.max(0, Math.floor(range?.start ?? 0));
  let end = range?.end ?? Number.POSITIVE_INFINITY;
  if (length !== null) end = Math.min(end, length);
  return { start, end: Math.max(start, end) };
}

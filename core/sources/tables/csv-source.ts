import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { parse, type Info } from 'csv-parse';
import { BetonEncodeError } from '../../format/errors.js';
import { COUNT_LIMIT_BYTES, countLines } from './count-records.js';
import type { RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { regularReadStream } from '../../native/regular-file.js';
import { utf8Check } from './utf8-check.js';

type Delimited = 'csv' | 'tsv';

/**
 * CSV and TSV with a header row, streamed through csv-parse (RFC 4180 quoting, a BOM is
 * dropped, empty lines skipped, every record must have as many fields as the header).
 * Cells stay strings; inference and the field mapping read numbers out of them.
 */
export class CsvTable implements TableReader {
  readonly textual = true;

  private constructor(
    readonly kind: Delimited,
    readonly path: string,
    readonly columns: readonly string[],
    readonly length: number | null,
    private readonly size: number,
  ) {}

  static async open(path: string, kind: Delimited = 'csv'): Promise<CsvTable> {
    const { size } = await stat(path);
    let header: string[] | null = null;
    for await (const { record } of records(path, kind)) {
      header = record;
      break;
    }
    if (!header)
      throw new BetonEncodeError('BAD_OPTIONS', `${path}: the file is empty; a header row naming the columns is required`, {
        source: path,
      });
    const length = size < COUNT_LIMIT_BYTES ? await countRecords(path, kind) : null;
    return new CsvTable(kind, path, uniqueHeader(header), length, size);
  }

  async sample(n: number): Promise<unknown[][]> {
    const out: unknown[][] = [];
    for await (const r of this.rows({ start: 0, end: n })) out.push([...r.values]);
    return out;
  }

  async *rows(range: RowRange): AsyncGenerator<TableRow> {
    if (range.start >= range.end) return;
    let index = -1; // the header is record -1
    for await (const { record, info } of records(this.path, this.kind)) {
      if (index >= range.start) yield { index, values: record, line: info.lines };
      if (++index >= range.end) return;
    }
  }

  sourceBytes(): number {
    return this.size;
  }
}

/** Records with their line numbers; csv-parse's errors are re-thrown naming the file. */
async function* records(path: string, kind: Delimited): AsyncGenerator<{ record: string[]; info: Info }> {
  const parser = parse({
    delimiter: kind === 'tsv' ? '\t' : ',',
    bom: true,
    skip_empty_lines: true,
    info: true,
    // TSV files rarely quote, so a stray '"' inside a field is data, not an error.
    relax_quotes: kind === 'tsv',
  });
  const stream = pipeline(regularReadStream(path), utf8Check(path), parser, () => undefined);
  try {
    for await (const r of stream as AsyncIterable<{ record: string[]; info: Info }>) yield r;
  } catch (e) {
    if (e instanceof BetonEncodeError) throw e;
    const err = e as Error & { code?: string };
    if (err.code === 'ENOENT' || err.code === 'EACCES')
      throw new BetonEncodeError('BAD_OPTIONS', `cannot read ${path}: ${err.message}`, { source: path });
    throw new BetonEncodeError('BAD_VALUE', `${path}: ${err.message}`, { source: path });
  }
}

/** Data records (header excluded): a newline count when nothing is quoted, else a parse. */
async function countRecords(path: string, kind: Delimited): Promise<number> {
  const lines = await countLines(path, { stopAtQuote: true });
  if (lines !== null) return Math.max(0, lines - 1);
  let n = -1;
  for await (const _ of records(path, kind)) n++;
  return Math.max(0, n);
}

/** Column names as pandas makes them: blanks become "Unnamed: i", repeats get ".1", ".2". */
export function uniqueHeader(header: readonly string[]): string[] {
  const seen = new Set<string>();
  return header.map((h, i) => {
    const base = h.trim() === '' ? `Unnamed: ${i}` : h;
    let name = base;
    for (let k = 1; seen.has(name); k++) name = `${base}.${k}`;
    seen.add(name);
    return name;
  });
}

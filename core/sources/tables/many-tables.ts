import { basename, dirname } from 'node:path';
import { BetonEncodeError } from '../../format/errors.js';
import { openTableReader, resolveTableFormat, tableFormatOf, type TableFormat } from './open-table.js';
import type { ReadGuard } from '../common/read-guard.js';
import { expandPathPattern } from '../common/path-patterns.js';
import type { RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { TableSource, type TableSourceOptions } from './table-source.js';

/**
 * Many files of one format read as one table (`data/train-*.parquet`, Hugging Face's
 * `train-00000-of-00042.parquet`, `{a,b,c}.csv`): the files in name order (braces in the
 * order written), rows numbered across them. Every file must have the first file's
 * columns, in the same order; the first that differs is named with what differs.
 */
export class ManyTables implements TableReader {
  readonly kind: string;
  readonly columns: readonly string[];
  readonly length: number | null;
  readonly textual: boolean;
  readonly declared: TableReader['declared'];
  readonly hints: TableReader['hints'];

  constructor(
    /** The pattern, for messages and reports. */
    readonly path: string,
    readonly parts: readonly TableReader[],
  ) {
    const first = parts[0]!;
    this.kind = first.kind;
    this.columns = first.columns;
    this.textual = first.textual;
    this.declared = first.declared;
    this.hints = first.hints;
    for (const p of parts.slice(1)) checkSameColumns(first, p);
    this.length = parts.every((p) => p.length !== null) ? parts.reduce((s, p) => s + p.length!, 0) : null;
  }

  static async open(pattern: string, baseDir: string, format?: TableFormat, guard?: ReadGuard): Promise<ManyTables> {
    const files = expandPathPattern(pattern, baseDir, guard);
    // Told by the extensions, before any is opened: a parquet file read as CSV fails on its
    // bytes ("invalid UTF-8 … iconv"), which names no cause (a format given for the whole
    // pattern, as detection gives, overrides the extension and would hide it).
    const byExt = new Map<TableFormat, string>();
    for (const file of files) {
      const e = tableFormatOf(file);
      if (e && !byExt.has(e)) byExt.set(e, file);
    }
    if (byExt.size > 1) {
      const [[fa, a], [fb, b]] = [...byExt] as [[TableFormat, string], [TableFormat, string]];
      throw new BetonEncodeError(
        'BAD_OPTIONS',
        `${pattern} names files of different formats: ${b} is ${fb}, but ${a} is ${fa}; a pattern must name files of one format`,
        {
          source: b,
        },
      );
    }
    const f = format ?? resolveTableFormat(files[0]!);
    const parts: TableReader[] = [];
    for (const file of files) {
      const own = resolveTableFormat(file, format);
      if (own !== f)
        throw new BetonEncodeError('BAD_OPTIONS', `${file} is ${own}, but ${files[0]} is ${f}; a pattern must name files of one format`, {
          source: file,
        });
      parts.push(await openTableReader(file, f));
    }
    return new ManyTables(pattern, parts);
  }

  async sample(n: number, columns?: readonly number[]): Promise<unknown[][]> {
    const out: unknown[][] = [];
    for (const p of this.parts) {
      if (out.length >= n) break;
      for (const row of await p.sample(n - out.length, columns)) out.push(row);
    }
    return out;
  }

  async *rows(range: RowRange, needed: readonly number[]): AsyncGenerator<TableRow> {
    let offset = 0;
    for (const p of this.parts) {
      if (offset >= range.end) return;
      // A file wholly before the range is skipped without reading when its length is known.
      if (p.length !== null && offset + p.length <= range.start) {
        offset += p.length;
        continue;
      }
      const local = { start: Math.max(0, range.start - offset), end: range.end - offset };
      let seen = local.start;
      for await (const row of p.rows(local, needed)) {
        seen = row.index + 1;
        yield { ...row, index: offset + row.index, file: p.path, fileIndex: row.index };
      }
      offset += p.length ?? seen;
    }
  }

  sourceBytes(): number | null {
    let total = 0;
    for (const p of this.parts) {
      const b = p.sourceBytes();
      if (b === null) return null;
      total += b;
    }
    return total;
  }
}

function checkSameColumns(first: TableReader, other: TableReader): void {
  const a = first.columns;
  const b = other.columns;
  if (a.length === b.length && a.every((c, i) => c === b[i])) return;
  const missing = a.filter((c) => !b.includes(c));
  const extra = b.filter((c) => !a.includes(c));
  const list = (cs: readonly string[]): string =>
    cs
      .slice(0, 5)
      .map((c) => JSON.stringify(c))
      .join(', ') + (cs.length > 5 ? ', …' : '');
  const why =
    missing.length || extra.length
      ? [missing.length ? `it lacks ${list(missing)}` : '', extra.length ? `it has ${list(extra)} besides` : ''].filter(Boolean).join('; ')
      : `the same columns in another order (${list(b)})`;
  throw new BetonEncodeError(
    'BAD_SCHEMA',
    `${other.path}: its columns differ from ${basename(first.path)}'s (${why}); every file of a pattern must have the same columns`,
    { source: other.path },
  );
}

/** A TableSource over the files a pattern names. */
export async function openManyTables(
  pattern: string,
  baseDir: string,
  format: TableFormat | undefined,
  strings: TableSourceOptions['strings'] | undefined,
  guard?: ReadGuard,
): Promise<TableSource> {
  const reader = await ManyTables.open(pattern, baseDir, format, guard);
  // Relative image paths in rows resolve from the first file's folder.
  return new TableSource(reader, { ...(strings ? { strings } : {}), baseDir: dirname(reader.parts[0]!.path) });
}

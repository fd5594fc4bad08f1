import { dirname } from 'node:path';
import type { FieldConfig } from '../../api/build-config.js';
import { skipMarker, type Sample } from '../../writer/sample.js';
import { compileMapper } from './column-mapping.js';
import { findImageColumns } from './image-columns.js';
import { INFER_ROWS, inferSchema, type InferOptions } from './infer-schema.js';
import type { ReadGuard } from '../common/read-guard.js';
import type { DatasetSource } from '../common/source.js';
import { clampRange, type TableReader } from '../common/table-reader.js';

export interface TableSourceOptions extends InferOptions {
  /** Reported kind (default: the reader's, e.g. 'csv'); image lists say 'image_list'. */
  kind?: string;
  /** Where relative image paths resolve from (default: the file's folder). */
  baseDir?: string;
  /** Also make image fields of other columns that hold image paths (image lists). */
  detectImages?: boolean;
  /** beton serve: image paths in the rows must stay inside the served folders (read-guard.ts). */
  readGuard?: ReadGuard;
}

/**
 * A DatasetSource over any TableReader: the schema comes from the file's declared types
 * or a sampling pass over the first rows (infer-schema.ts); samples stream row by row
 * through the compiled column mapping (column-mapping.ts), reading only the columns the
 * fields use.
 */
export class TableSource implements DatasetSource {
  readonly kind: string;
  readonly path: string;
  readonly length: number | null;
  readonly baseDir: string;

  constructor(
    readonly reader: TableReader,
    private readonly opts: TableSourceOptions = {},
  ) {
    this.kind = opts.kind ?? reader.kind;
    this.path = reader.path;
    this.length = reader.length;
    this.baseDir = opts.baseDir ?? dirname(reader.path);
  }

  get columns(): readonly string[] {
    return this.reader.columns;
  }

  async detectSchema(): Promise<FieldConfig[]> {
    const r = this.reader;
    const undeclared = r.columns.flatMap((_, i) => (r.declared?.[i] ? [] : [i]));
    const rows = undeclared.length > 0 ? await r.sample(INFER_ROWS, undeclared) : [];
    const found = this.opts.detectImages ? findImageColumns(r.columns, rows, this.baseDir, this.opts.readGuard) : [];
    const given = this.opts.imageColumns ?? [];
    const imageColumns = [...given, ...found.filter((c) => !given.includes(c))];
    return inferSchema(
      { columns: r.columns, rows, textual: r.textual, declared: r.declared, hints: r.hints },
      { ...this.opts, imageColumns },
    );
  }

  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample> {
    // Compiled here, not on first next(), so a bad mapping fails before the writer starts.
    const mapper = compileMapper(fields, this.reader.columns, {
      path: this.path,
      baseDir: this.baseDir,
      ...(this.opts.readGuard ? { readGuard: this.opts.readGuard } : {}),
    });
    const r = clampRange(range, this.length);
    const reader = this.reader;
    const path = this.path;
    // `length` lets DatasetWriter size the file up front when the slice is known.
    return {
      ...(Number.isFinite(r.end) ? { length: r.end - r.start } : {}),
      async *[Symbol.asyncIterator]() {
        for await (const row of reader.rows(r, mapper.needed)) {
          // A bad cell becomes a skip marker: the writer's onError policy decides (fail or skip).
          try {
            yield mapper.map(row);
          } catch (e) {
            const err = e as Error & { details?: { field?: string } };
            yield skipMarker(err.message, `${path} row ${row.index}`, err.details?.field);
          }
        }
      },
    };
  }

  sourceBytes(): number | null {
    return this.reader.sourceBytes();
  }
}

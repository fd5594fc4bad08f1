import { dirname } from 'node:path';
import type { FieldConfig } from '../api/build-config.js';
import type { Sample } from '../writer/encode-sample.js';
import { compileMapper } from './column-mapping.js';
import { INFER_ROWS, inferSchema, type InferOptions } from './infer-schema.js';
import type { DatasetSource } from './source.js';
import { clampRange, type TableReader } from './table-reader.js';

export interface TableSourceOptions extends InferOptions {
  /** Reported kind (default: the reader's, e.g. 'csv'); image lists say 'image_list'. */
  kind?: string;
  /** Where relative image paths resolve from (default: the file's folder). */
  baseDir?: string;
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
    const needsSample = r.columns.some((_, i) => !r.declared?.[i]);
    const rows = needsSample ? await r.sample(INFER_ROWS) : [];
    return inferSchema({ columns: r.columns, rows, textual: r.textual, declared: r.declared, hints: r.hints }, this.opts);
  }

  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample> {
    // Compiled here, not on first next(), so a bad mapping fails before the writer starts.
    const mapper = compileMapper(fields, this.reader.columns, { path: this.path, baseDir: this.baseDir });
    const r = clampRange(range, this.length);
    const reader = this.reader;
    // `length` lets DatasetWriter size the file up front when the slice is known.
    return {
      ...(Number.isFinite(r.end) ? { length: r.end - r.start } : {}),
      async *[Symbol.asyncIterator]() {
        for await (const row of reader.rows(r, mapper.needed)) yield mapper.map(row);
      },
    };
  }

  sourceBytes(): number | null {
    return this.reader.sourceBytes();
  }
}

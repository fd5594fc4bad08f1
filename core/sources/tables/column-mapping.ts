import type { FieldConfig } from '../../api/build-config.js';
import { NDARRAY_IDENTITY, TORCH_TENSOR_IDENTITY } from '../../fields/ndarray-field.js';
import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { VIDEO_CLIP_IDENTITY } from '../../fields/video-clip-field.js';
import { parseDType } from '../../format/dtype.js';
import { BetonEncodeError } from '../../format/errors.js';
import type { NDArray } from '../../fields/ndarray-field.js';
import { categoryMapper } from './label-mapping.js';
import type { ReadGuard } from '../common/read-guard.js';
import type { TableRow } from '../common/table-reader.js';
import { ElementWriter } from './element-writer.js';
import { toBytes, toFloat, toImage, toInt, toJson, ValueProblem } from './value-coercion.js';
import { setOwn } from '../../format/own-keys.js';

/**
 * A field's `columns` select and group source columns (default: the column named like the
 * field). An entry naming a column exactly matches it; otherwise `*` is a wildcard and the
 * entry expands to every matching column, in column order. An ndarray field gathers the
 * elements of all its columns in order (784 `pixel*` columns → one (28, 28) array); a json
 * field with several columns stores an object keyed by column; other fields take one.
 */
export function resolveColumns(field: FieldConfig, columns: readonly string[], where: string): number[] {
  const patterns = field.columns ?? [field.name];
  const out: number[] = [];
  const index = columnIndex(columns);
  for (const p of patterns) {
    const exact = index.get(p);
    if (exact !== undefined) {
      out.push(exact);
      continue;
    }
    if (p.includes('*')) {
      const re = globToRegExp(p);
      const hits = columns.flatMap((c, i) => (re.test(c) ? [i] : []));
      if (hits.length === 0) throw schemaError(where, field, `no column matches "${p}"${columnList(columns)}`);
      // A loop, not push(...hits): a spread passes each hit as an argument, and 125k columns overflow the stack.
      for (const h of hits) out.push(h);
      continue;
    }
    const hint = field.columns ? '' : ` (set "columns" to map the field to differently named columns)`;
    throw schemaError(where, field, `no column "${p}"${hint}${columnList(columns)}`);
  }
  return out;
}

/** Column name → first index, built once per column list (a Map: names like `__proto__` are plain keys; no O(columns²) indexOf). */
const indexes = new WeakMap<readonly string[], Map<string, number>>();
function columnIndex(columns: readonly string[]): Map<string, number> {
  let m = indexes.get(columns);
  if (!m) {
    m = new Map();
    for (let i = 0; i < columns.length; i++) if (!m.has(columns[i]!)) m.set(columns[i]!, i);
    indexes.set(columns, m);
  }
  return m;
}

export function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
}

export interface SampleMapper {
  /** Column indexes any field reads (columnar readers read only these). */
  needed: number[];
  /** One sample (field name → encoder input) from one row; errors name file, row, column and field. */
  map(row: TableRow): Record<string, unknown>;
}

interface Converter {
  name: string;
  cols: number[];
  convert(row: TableRow): unknown;
}

/** Compiles the fields against a source's columns once; each row is then a few array lookups. */
export function compileMapper(
  fields: readonly FieldConfig[],
  columns: readonly string[],
  ctx: { path: string; baseDir: string; readGuard?: ReadGuard },
): SampleMapper {
  const guard = ctx.readGuard;
  // The image is read later (in a worker) from the path the guard checked and resolved.
  const image = (v: unknown): unknown => {
    const img = toImage(v, ctx.baseDir);
    if (!guard || typeof img !== 'object' || !('path' in img)) return img;
    try {
      // confined: the worker checks that the file it opens is still this real path (item 4 of issue 19).
      return { path: guard(img.path), confined: true };
    } catch (e) {
      throw new ValueProblem((e as Error).message);
    }
  };
  const where = ctx.path;
  const converters: Converter[] = fields.map((f) => {
    const cols = resolveColumns(f, columns, where);
    const one = (): number => {
      if (cols.length !== 1)
        throw schemaError(where, f, `a ${f.type} field takes exactly one column, got ${cols.length} (${names(cols, columns)})`);
      return cols[0]!;
    };
    const at = (c: number, row: TableRow, fn: (v: unknown) => unknown): unknown => {
      try {
        return fn(row.values[c]);
      } catch (e) {
        throw valueError(ctx.path, row, columns[c]!, f, e);
      }
    };
    switch (f.type) {
      case 'int': {
        const c = one();
        const toLabel = f.categories ? categoryMapper(f.categories) : toInt;
        return { name: f.name, cols, convert: (row) => at(c, row, toLabel) };
      }
      case 'float': {
        const c = one();
        return { name: f.name, cols, convert: (row) => at(c, row, toFloat) };
      }
      case 'bytes': {
        const c = one();
        return { name: f.name, cols, convert: (row) => at(c, row, toBytes) };
      }
      case RGB_IMAGE_IDENTITY.type: {
        const c = one();
        return { name: f.name, cols, convert: (row) => at(c, row, image) };
      }
      case 'json': {
        if (cols.length === 1) {
          const c = cols[0]!;
          return { name: f.name, cols, convert: (row) => at(c, row, toJson) };
        }
        return {
          name: f.name,
          cols,
          convert: (row) => Object.fromEntries(cols.map((c) => [columns[c]!, at(c, row, toJson)])),
        };
      }
      case VIDEO_CLIP_IDENTITY.type:
        throw schemaError(
          where,
          f,
          'a video_clip field takes its frames from a video source (video_folder or video_list), not from a table column',
        );
      case NDARRAY_IDENTITY.type:
      case TORCH_TENSOR_IDENTITY.type: {
        let dtype;
        try {
          dtype = parseDType(f.dtype);
        } catch (e) {
          throw schemaError(where, f, (e as Error).message);
        }
        const d = dtype;
        const shape = [...f.shape];
        const count = shape.reduce((a, b) => a * b, 1);
        return {
          name: f.name,
          cols,
          convert: (row) => {
            const w = new ElementWriter(d, count);
            for (const c of cols) at(c, row, (v) => w.add(v));
            if (w.count !== count) {
              const e = new ValueProblem(
                `needs ${count} elements for shape [${shape.join(', ')}], got ${w.count} from ${names(cols, columns)}`,
              );
              throw valueError(ctx.path, row, null, f, e);
            }
            const out: NDArray = { dtype: d.str, shape, bytes: w.bytes };
            return out;
          },
        };
      }
    }
  });
  const needed = [...new Set(converters.flatMap((c) => c.cols))].sort((a, b) => a - b);
  return {
    needed,
    map(row) {
      const sample: Record<string, unknown> = {};
      for (const c of converters) setOwn(sample, c.name, c.convert(row));
      return sample;
    },
  };
}

function names(cols: readonly number[], columns: readonly string[]): string {
  if (cols.length === 0) return 'no columns';
  const list = cols.map((c) => columns[c]!);
  return list.length <= 4 ? list.join(', ') : `${list[0]}…${list[list.length - 1]} (${list.length} columns)`;
}

function columnList(columns: readonly string[]): string {
  const shown = columns
    .slice(0, 20)
    .map((c) => JSON.stringify(c))
    .join(', ');
  return `; the source has ${columns.length} column${columns.length === 1 ? '' : 's'}: ${shown}${columns.length > 20 ? ', …' : ''}`;
}

function schemaError(where: string, f: FieldConfig, why: string): BetonEncodeError {
  return new BetonEncodeError('BAD_SCHEMA', `${where}: field "${f.name}" (${f.type}): ${why}`, { field: f.name, source: where });
}

function valueError(path: string, row: TableRow, column: string | null, f: FieldConfig, e: unknown): Error {
  if (!(e instanceof ValueProblem)) return e as Error;
  const line = row.line !== undefined ? ` (line ${row.line})` : '';
  const col = column !== null ? `, column "${column}"` : '';
  return new BetonEncodeError(
    'BAD_VALUE',
    `${row.file ?? path}: row ${row.fileIndex ?? row.index}${line}${col} → field "${f.name}" (${f.type}): ${e.message}`,
    {
      field: f.name,
      sample: row.index,
      source: path,
    },
  );
}

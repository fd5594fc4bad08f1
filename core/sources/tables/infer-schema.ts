import { RGBImageFieldConfig, type FieldConfig } from '../../api/build-config.js';
import { NDARRAY_IDENTITY } from '../../fields/ndarray-field.js';
import { PyFloat } from '../../fields/python-json.js';
import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { uniqueFieldNames } from './field-names.js';
import type { ColumnType, LeafHint } from '../common/table-reader.js';
import { isImageBytes, isNAText, isNDArrayValue, parseBoolText, parseFloatText, parseIntText } from './cell-text.js';

/** Rows sampled for inference. */
export const INFER_ROWS = 1000;
/** Runs of at least this many numbered numeric columns (pixel0..pixel783) become one array. */
const MIN_GROUP = 8;

export interface InferOptions {
  /** String columns become `json` (default: the string is stored as a JSON string) or `bytes` (UTF-8). */
  strings?: 'json' | 'bytes';
  /** Columns that hold image paths (an image list's image column, and others found by image-columns.ts). */
  imageColumns?: readonly string[];
  /** Field name for the first of `imageColumns` (image lists use "image"). */
  imageFieldName?: string;
}

export interface InferInput {
  columns: readonly string[];
  /** Sampled rows, one value per column. */
  rows: ReadonlyArray<readonly unknown[]>;
  /** Cells are text (CSV/TSV): numbers are read out of strings. */
  textual: boolean;
  declared?: ReadonlyArray<ColumnType | undefined>;
  hints?: ReadonlyArray<LeafHint | undefined>;
}

/** The column type after a sampling pass; `missing` notes nulls/empty cells were seen. */
export type InferredType = ColumnType & { missing?: boolean };

/**
 * Proposes build-config fields for a table: per column int (all integers, booleans
 * included), float (any non-integer number, or integers with gaps, as pandas), string →
 * json (or bytes), fixed-length numeric lists → ndarray (int64, or float32 when any
 * element is fractional), image paths → rgb_image, anything else → json. Numbered runs of
 * numeric columns are grouped into one ndarray (`pixel*`). Field names are made valid and
 * unique; a field whose name differs from its column records it in `columns`.
 */
export function inferSchema(input: InferInput, opts: InferOptions = {}): FieldConfig[] {
  const { columns, rows } = input;
  const imageCols = new Set(opts.imageColumns ?? []);
  const types: InferredType[] = columns.map((c, i) => {
    const declared = input.declared?.[i];
    if (declared) return declared;
    const values = rows.map((r) => r[i]);
    if (imageCols.has(c)) return { kind: 'image' };
    return inferColumnType(values, { textual: input.textual, hint: input.hints?.[i] });
  });

  interface Proposal {
    wanted: string;
    /** The source columns; one entry, or the group's glob/list. */
    columns: string[];
    /** True when `columns` must be written even if the name matches (groups). */
    explicit: boolean;
    make: (name: string) => FieldConfig;
  }
  const proposals: Proposal[] = [];
  const firstImage = opts.imageColumns?.[0];
  for (let i = 0; i < columns.length;) {
    const group = numberedRun(columns, types, i);
    if (group) {
      const dtype = group.float ? 'float32' : 'int64';
      proposals.push({
        wanted: group.name,
        columns: group.columns,
        explicit: true,
        make: (name) => ({ name, type: NDARRAY_IDENTITY.type, dtype, shape: [group.length] }),
      });
      i += group.length;
      continue;
    }
    const c = columns[i]!;
    const t = types[i]!;
    const wanted = c === firstImage && opts.imageFieldName ? opts.imageFieldName : c;
    proposals.push({ wanted, columns: [c], explicit: false, make: (name) => fieldFor(name, t, opts) });
    i++;
  }
  const names = uniqueFieldNames(proposals.map((p) => p.wanted));
  return proposals.map((p, k) => {
    const name = names[k]!;
    const f = p.make(name);
    return p.explicit || name !== p.columns[0] ? { ...f, columns: p.columns } : f;
  });
}

function fieldFor(name: string, t: InferredType, opts: InferOptions): FieldConfig {
  switch (t.kind) {
    case 'int':
    case 'float':
    case 'bytes':
    case 'json':
      return { name, type: t.kind };
    case 'string':
      return { name, type: opts.strings === 'bytes' ? 'bytes' : 'json' };
    case 'image':
      return RGBImageFieldConfig.parse({ name, type: RGB_IMAGE_IDENTITY.type });
    case 'ndarray':
      return { name, type: NDARRAY_IDENTITY.type, dtype: t.dtype, shape: [...t.shape] };
  }
}

type Leaf = 'int' | 'float' | 'bool';

/** One column's type from its sampled values (missing = undefined, null, or an NA text cell such as "" or "NaN"). */
export function inferColumnType(values: readonly unknown[], opts: { textual: boolean; hint?: LeafHint }): InferredType {
  let missing = false;
  const seen = new Set<string>();
  let leaf: Leaf | null = null;
  let listShape: number[] | null = null;
  let listMismatch = false;
  let nd: { dtype: string; shape: number[] } | null = null;
  const addLeaf = (l: Leaf): void => {
    leaf = leaf === null ? l : leaf === l ? l : leaf === 'float' || l === 'float' ? 'float' : 'int';
  };
  for (const v of values) {
    if (v === undefined || v === null || (opts.textual && typeof v === 'string' && isNAText(v))) {
      missing = true;
      continue;
    }
    const s = scalarLeaf(v, opts.textual);
    if (s) {
      seen.add('number');
      addLeaf(s);
    } else if (typeof v === 'string' || v instanceof Date) seen.add('string');
    else if (v instanceof Uint8Array) seen.add('bytes');
    else if (isImageBytes(v)) seen.add('image');
    else if (isNDArrayValue(v)) {
      seen.add('ndarray');
      if (nd && (nd.dtype !== v.dtype || nd.shape.join() !== v.shape.join())) listMismatch = true;
      nd ??= { dtype: v.dtype, shape: [...v.shape] };
    } else if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      const r = numericShape(v);
      if (!r) seen.add('json');
      else {
        seen.add('list');
        for (const l of r.leaves) addLeaf(l);
        if (listShape && listShape.join() !== r.shape.join()) listMismatch = true;
        listShape ??= r.shape;
      }
    } else seen.add('json');
  }
  if (seen.size !== 1) return { kind: 'json', missing };
  const only = [...seen][0]!;
  const hinted = (l: Leaf | null): Leaf | null => (opts.hint === 'float' ? 'float' : l);
  switch (only) {
    case 'number': {
      const l = hinted(leaf);
      // Gaps in an integer column read as NaN, as pandas does; booleans with gaps have no number form.
      if (l === 'float' || (missing && l === 'int')) return { kind: 'float', missing };
      return missing ? { kind: 'json', missing } : { kind: 'int' };
    }
    case 'string':
      return { kind: 'string', missing };
    case 'bytes':
      return { kind: 'bytes', missing };
    case 'image':
      return { kind: 'image', missing };
    case 'ndarray':
      return !listMismatch && !missing && nd ? { kind: 'ndarray', dtype: nd.dtype, shape: nd.shape } : { kind: 'json', missing };
    case 'list': {
      if (listMismatch || missing || !listShape || listShape.some((d) => d === 0)) return { kind: 'json', missing };
      return { kind: 'ndarray', dtype: hinted(leaf) === 'float' ? 'float32' : 'int64', shape: listShape };
    }
    default:
      return { kind: 'json', missing };
  }
}

function scalarLeaf(v: unknown, textual: boolean): Leaf | null {
  if (v instanceof PyFloat) return 'float';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (textual && typeof v === 'string') {
    if (parseIntText(v) !== null) return 'int';
    if (parseFloatText(v) !== null) return 'float';
    if (parseBoolText(v) !== null) return 'bool';
  }
  return null;
}

/** Shape and leaf kinds of a rectangular nested array of numbers, or null. */
function numericShape(v: unknown): { shape: number[]; leaves: Set<Leaf> } | null {
  const leaves = new Set<Leaf>();
  const walk = (x: unknown, depth: number, shape: number[]): boolean => {
    if (Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView))) {
      const arr = x as ArrayLike<unknown>;
      if (shape.length === depth) shape.push(arr.length);
      else if (shape[depth] !== arr.length) return false;
      for (let i = 0; i < arr.length; i++) if (!walk(arr[i], depth + 1, shape)) return false;
      return true;
    }
    if (shape.length !== depth) return false; // a scalar where a sub-array was expected
    const l = scalarLeaf(x, false);
    if (!l) return false;
    leaves.add(l);
    return true;
  };
  const shape: number[] = [];
  return walk(v, 0, shape) ? { shape, leaves } : null;
}

/**
 * A run of ≥ MIN_GROUP numeric columns named prefix + consecutive integers starting at
 * column `i`. Its columns are the glob `prefix*` when that matches exactly the run.
 */
function numberedRun(
  columns: readonly string[],
  types: readonly InferredType[],
  i: number,
): { name: string; columns: string[]; length: number; float: boolean } | null {
  const numeric = (k: number): boolean => types[k]?.kind === 'int' || types[k]?.kind === 'float';
  const m = /^(.*?)(\d+)$/.exec(columns[i]!);
  if (!m || !numeric(i)) return null;
  const prefix = m[1]!;
  let n = Number(m[2]);
  let j = i + 1;
  for (; j < columns.length && numeric(j); j++) {
    const mj = /^(.*?)(\d+)$/.exec(columns[j]!);
    if (!mj || mj[1] !== prefix || Number(mj[2]) !== n + 1) break;
    n++;
  }
  const length = j - i;
  if (length < MIN_GROUP) return null;
  const run = columns.slice(i, j);
  const glob = `${prefix}*`;
  const globbed = columns.filter((c) => c.startsWith(prefix));
  const exact = prefix !== '' && globbed.length === run.length && !columns.includes(glob);
  return {
    name: prefix.replace(/[\s_.\-:]+$/, '') || 'values',
    columns: exact ? [glob] : run,
    length,
    float: types.slice(i, j).some((t) => t.kind === 'float'),
  };
}

import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { BetonEncodeError } from '../../format/errors.js';
import { parsePythonJson, PyFloat } from '../../fields/python-json.js';
import { COUNT_LIMIT_BYTES, countLines } from './count-records.js';
import type { RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { ownValue, setOwn } from '../../format/own-keys.js';
import { regularReadStream } from '../../native/regular-file.js';
import { utf8Check } from './utf8-check.js';
import { pipeline } from 'node:stream';

/** Rows read to discover the columns (keys in order of first appearance). */
const DISCOVERY_ROWS = 1000;
/** An integer literal this long may not survive a float64 round trip. */
const LONG_INT = /\d{16,}/;

/**
 * JSON lines: one JSON object per line, streamed line by line (blank lines skipped).
 * Columns are the keys seen in the first 1000 rows; a key missing from a row reads as
 * undefined (null in JSON fields, an error in numeric ones).
 */
export class JsonlTable implements TableReader {
  readonly kind = 'jsonl';
  readonly textual = false;

  private constructor(
    readonly path: string,
    readonly columns: readonly string[],
    readonly length: number | null,
    private readonly size: number,
    private readonly head: unknown[][],
  ) {}

  static async open(path: string): Promise<JsonlTable> {
    const { size } = await stat(path);
    const objects: Array<Record<string, unknown>> = [];
    for await (const { obj } of lines(path, true)) {
      objects.push(obj);
      if (objects.length >= DISCOVERY_ROWS) break;
    }
    const keys = new Set<string>();
    for (const o of objects) for (const k of Object.keys(o)) keys.add(k);
    if (keys.size === 0)
      throw new BetonEncodeError('BAD_OPTIONS', `${path}: no JSON objects with keys found; expected one object per line`, { source: path });
    const columns = [...keys];
    const head = objects.map((o) => columns.map((c) => ownValue(o, c)));
    const length = size < COUNT_LIMIT_BYTES ? await countLines(path, { blankIsEmpty: true }) : null;
    return new JsonlTable(path, columns, length, size, head);
  }

  /** Sampled with float literals kept as PyFloat, so `1.0` counts as float evidence. */
  async sample(n: number): Promise<unknown[][]> {
    return this.head.slice(0, n);
  }

  async *rows(range: RowRange): AsyncGenerator<TableRow> {
    if (range.start >= range.end) return;
    let index = 0;
    const cols = this.columns;
    for await (const { obj, line } of lines(this.path, false, range.start)) {
      if (index >= range.start) yield { index, values: cols.map((c) => ownValue(obj, c)), line };
      if (++index >= range.end) return;
    }
  }

  sourceBytes(): number {
    return this.size;
  }
}

/**
 * Parsed objects with their line numbers. Lines before `skip` objects are counted but
 * not parsed. `exact` keeps float literals as PyFloat (inference); otherwise JSON.parse,
 * falling back to the exact parser only where a long integer would lose digits.
 */
async function* lines(path: string, exact: boolean, skip = 0): AsyncGenerator<{ obj: Record<string, unknown>; line: number }> {
  const rl = createInterface({ input: pipeline(regularReadStream(path), utf8Check(path), () => undefined), crlfDelay: Infinity });
  let line = 0;
  let seen = 0;
  try {
    for await (let text of rl) {
      line++;
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '') continue;
      if (seen++ < skip) {
        yield { obj: {}, line };
        continue;
      }
      const v = parseLine(text, exact, path, line);
      if (!v || typeof v !== 'object' || Array.isArray(v)) {
        throw new BetonEncodeError(
          'BAD_VALUE',
          `${path}:${line}: expected a JSON object per line, got ${Array.isArray(v) ? 'an array' : JSON.stringify(v)}`,
          { source: path },
        );
      }
      yield { obj: v as Record<string, unknown>, line };
    }
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code === 'ENOENT' || err.code === 'EACCES')
      throw new BetonEncodeError('BAD_OPTIONS', `cannot read ${path}: ${err.message}`, { source: path });
    throw e;
  } finally {
    rl.close();
  }
}

/**
 * JSON.parse is the fast path. The exact parser (python-json.ts) takes over where JSON.parse
 * would lose digits of a long integer, and for Python's NaN/Infinity, which JSON.parse refuses.
 */
function parseLine(text: string, exact: boolean, path: string, line: number): unknown {
  if (!exact && !LONG_INT.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // fall through: maybe NaN/Infinity, which json.dumps writes
    }
  }
  try {
    const v = parsePythonJson(text, { keepFloats: true });
    return exact ? v : plainNumbers(v);
  } catch (e) {
    throw new BetonEncodeError('BAD_VALUE', `${path}:${line}: not valid JSON (${(e as Error).message})`, { source: path });
  }
}

/** Unwraps PyFloat markers (kept only during inference) but keeps exact bigints. */
function plainNumbers(v: unknown): unknown {
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, plainNumbers(x));
    return out;
  }
  return v;
}

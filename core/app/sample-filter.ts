import type { SampleWhere } from '../api/sample-detail.js';
import { BetonError } from '../format/errors.js';
import type { Reader } from '../reader/reader.js';

/**
 * Indices (file order) of the samples whose field passes `where`: int and float fields
 * are read from the record alone (a metadata scan, fast on any size); json fields are
 * decoded one by one (a string's value, or the JSON text of other values, is compared).
 * `within` restricts the scan (e.g. to a class's samples).
 *
 * Async, in chunks: `beton serve` runs this on its event loop, and a json field of a remote
 * file read sample by sample was one blocking page fetch each (`env.info` answered after
 * 27 s). Each chunk's pages are fetched first (Reader.prefetch: parallel GETs, nothing
 * blocks), and the loop yields between chunks, local files included.
 */
const CHUNK = 256;

export async function samplesWhere(
  reader: Reader,
  where: SampleWhere,
  within?: readonly number[],
  signal?: AbortSignal,
): Promise<number[]> {
  const f = reader.fields.findIndex((x) => x.name === where.field);
  const field = reader.fields[f];
  const type = field?.field.type;
  if (!field || (type !== 'int' && type !== 'float' && type !== 'json')) {
    const usable = reader.fields.filter((x) => ['int', 'float', 'json'].includes(x.field.type)).map((x) => x.name);
    throw new BetonError(
      'BAD_REQUEST',
      `${reader.path}: ${field ? `field "${where.field}" is ${type}` : `no field "${where.field}"`}; filters apply to int, float and json fields (${usable.join(', ') || 'none here'})`,
    );
  }
  const values = where.values ? new Set(where.values.map((v) => (typeof v === 'number' ? String(v) : v))) : null;
  const numeric = (v: number): boolean =>
    (where.min === undefined || v >= where.min) && (where.max === undefined || v <= where.max) && (!values || values.has(String(v)));
  const test = (i: number): boolean => {
    if (type === 'int') return numeric(Number(reader.fieldMetadata(i, f).getBigInt64(0, true)));
    if (type === 'float') return numeric(reader.fieldMetadata(i, f).getFloat64(0, true));
    const v = reader.readField(i, f);
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (values) return values.has(s);
    const n = typeof v === 'number' ? v : Number(s);
    return Number.isFinite(n) && numeric(n);
  };
  const out: number[] = [];
  const ids = within ?? { length: reader.numSamples };
  const at = (k: number): number => (within ? within[k]! : k);
  for (let k0 = 0; k0 < ids.length; k0 += CHUNK) {
    signal?.throwIfAborted();
    const chunk = Array.from({ length: Math.min(CHUNK, ids.length - k0) }, (_, k) => at(k0 + k));
    // Only json values live in the heap; int and float are in the metadata already read.
    if (type === 'json') await reader.prefetch(chunk);
    for (const i of chunk) if (test(i)) out.push(i);
    await new Promise<void>((r) => setImmediate(r));
  }
  return out;
}

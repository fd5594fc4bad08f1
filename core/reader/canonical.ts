import { createHash } from 'node:crypto';
import type { CanonicalTools, CanonicalValue } from '../fields/field-type.js';
import { fieldType } from '../fields/registry.js';
import type { Reader } from './reader.js';
import { setOwn } from '../format/own-keys.js';

export type { CanonicalValue } from '../fields/field-type.js';
export { ndarrayValues } from '../fields/ndarray-field.js';

/**
 * The canonical, implementation-neutral encoding of a sample used by the golden
 * manifests and `beton dump`: ints as decimal strings, floats as bit patterns, arrays,
 * bytes, JSON and images with sha256 digests. Two readers agree iff these agree. Each
 * field type writes its own (core/fields); a type without one is `{ type, value }`.
 */
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export function canonicalSample(reader: Reader, i: number): Record<string, CanonicalValue> {
  const out: Record<string, CanonicalValue> = {};
  reader.fields.forEach(({ name, field }, f) => {
    const value = reader.readField(i, f);
    const canonical = fieldType(field.type).canonical;
    if (!canonical) {
      setOwn(out, name, { type: field.type, value: jsonSafe(value) });
      return;
    }
    const tools: CanonicalTools = { sha256, hex, jsonSafe, storedBytes: () => reader.readBytes(reader.heapRef(i, f)!) };
    setOwn(out, name, canonical(value, tools));
  });
  return out;
}

/** Makes decoded JSON values printable with JSON.stringify (NaN/Infinity → strings). */
function jsonSafe(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSafe(x)]));
  if (v instanceof Uint8Array) return { size: v.byteLength, sha256: sha256(v) };
  return v;
}

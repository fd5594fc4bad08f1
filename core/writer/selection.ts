import { BetonEncodeError } from '../format/errors.js';

/**
 * Which contiguous slice [start, end) of a source a build covers: a Python-style range
 * (`--range a:b`, negative bounds from the end), and/or shard k of N (`--shard k/N`,
 * contiguous so shards concatenate in order; sizes differ by at most one). The shard is
 * taken within the range.
 */
export function selectSlice(
  length: number | null,
  range?: readonly [number, number | null],
  shard?: { index: number; count: number },
): { start: number; end: number | null } {
  let start = 0;
  let end: number | null = length;
  if (range) {
    const [a, b] = range;
    if (length === null && (a < 0 || (b !== null && b < 0))) {
      throw new BetonEncodeError('BAD_OPTIONS', 'a negative --range bound needs a source whose length is known');
    }
    const norm = (v: number): number => (length === null ? v : Math.min(length, Math.max(0, v < 0 ? length + v : v)));
    start = norm(a);
    end = b === null ? length : Math.max(start, norm(b));
  }
  if (shard) {
    if (end === null) throw new BetonEncodeError('BAD_OPTIONS', '--shard needs a source whose length is known (or a --range with an end)');
    const n = end - start;
    const s = start + Math.floor((shard.index * n) / shard.count);
    const e = start + Math.floor(((shard.index + 1) * n) / shard.count);
    return { start: s, end: e };
  }
  return { start, end };
}

/** Parses "k/N" (0-based k). */
export function parseShard(spec: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index >= count) throw new BetonEncodeError('BAD_OPTIONS', `--shard expects k/N with 0 <= k < N, got "${spec}"`);
  return { index, count };
}

/** Parses "a:b", "a:" or ":b" into [start, end|null]. */
export function parseRangeSpec(spec: string): [number, number | null] {
  const m = /^(-?\d*):(-?\d*)$/.exec(spec);
  if (!m) throw new BetonEncodeError('BAD_OPTIONS', `--range expects a:b (e.g. 0:1000), got "${spec}"`);
  return [m[1] === '' ? 0 : Number(m[1]), m[2] === '' ? null : Number(m[2])];
}

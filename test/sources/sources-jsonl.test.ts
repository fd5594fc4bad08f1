import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../core/fields/ndarray-field.js';
import { ndarrayTypedView } from '../../core/fields/ndarray-field.js';
import { openTableSource } from '../../core/sources/tables/open-table.js';
import { buildAndOpen, readAll, tempDir } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-jsonl-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

describe('JSONL source', () => {
  const lines = [
    '{"id": 1, "w": 1.0, "text": "a", "emb": [0.5, 1, 2], "grid": [[1, 2], [3, 4]], "meta": {"k": [1, "x"]}, "flag": true, "uid": 12345678901234567890}',
    '',
    '{"id": 2, "w": 2.5, "text": "\\u00e9", "emb": [1, 2, 3], "grid": [[5, 6], [7, 8]], "meta": null, "flag": false, "uid": 1}',
    '   ',
    '{"id": 3, "w": NaN, "emb": [-1, 0, 1e3], "grid": [[0, 0], [0, -9]], "meta": {"z": 1.5}, "flag": true, "uid": 2, "late": 1}',
  ];
  const path = join(dir, 'data.jsonl');
  writeFileSync(path, '\ufeff' + lines.join('\r\n') + '\n');

  it('infers fields from values (1.0 is a float, lists are arrays) and round-trips them', async () => {
    const src = await openTableSource(path, 'jsonl');
    expect(src.length).toBe(3); // blank lines are not rows
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'id', type: 'int' },
      { name: 'w', type: 'float' },
      { name: 'text', type: 'json' },
      { name: 'emb', type: 'ndarray', dtype: 'float32', shape: [3] },
      { name: 'grid', type: 'ndarray', dtype: 'int64', shape: [2, 2] },
      { name: 'meta', type: 'json' },
      { name: 'flag', type: 'int' },
      { name: 'uid', type: 'int' },
      { name: 'late', type: 'float' }, // integers with gaps read as NaN, as pandas does
    ]);
    // uint64-sized ids do not fit IntField; store them as JSON instead.
    const use = fields.map((f) => (f.name === 'uid' ? { name: 'uid', type: 'json' as const } : f));
    const r = await buildAndOpen(src, use, out());
    const got = readAll(r);
    expect(got.map((s) => s.id)).toEqual([1n, 2n, 3n]);
    expect(got[0]!.w).toBe(1);
    expect(got[1]!.w).toBe(2.5);
    expect(Number.isNaN(got[2]!.w)).toBe(true);
    expect(got.map((s) => s.text)).toEqual(['a', 'é', null]); // missing key → null
    expect(got.map((s) => Array.from(ndarrayTypedView(s.emb as NDArray) as Float32Array))).toEqual([
      [0.5, 1, 2],
      [1, 2, 3],
      [-1, 0, 1000],
    ]);
    expect(got.map((s) => Array.from(ndarrayTypedView(s.grid as NDArray) as BigInt64Array))).toEqual([
      [1n, 2n, 3n, 4n],
      [5n, 6n, 7n, 8n],
      [0n, 0n, 0n, -9n],
    ]);
    expect(got.map((s) => s.meta)).toEqual([{ k: [1, 'x'] }, null, { z: 1.5 }]);
    expect(got.map((s) => s.flag)).toEqual([1n, 0n, 1n]);
    r.close();
    // Long integers are parsed exactly (JSONField then writes all their digits).
    const uids: unknown[] = [];
    for await (const smp of src.samples([{ name: 'uid', type: 'json' }])) uids.push((smp as { uid: unknown }).uid);
    expect(uids).toEqual([12345678901234567890n, 1, 2]);
    expect(got.map((s) => s.late)).toEqual([NaN, NaN, 1]);
  });

  it('groups columns into a json object, and honours a range', async () => {
    const src = await openTableSource(path, 'jsonl');
    const r = await buildAndOpen(src, [{ name: 'both', type: 'json', columns: ['id', 'text'] }], out(), { start: 1, end: 10 });
    expect(readAll(r).map((s) => s.both)).toEqual([
      { id: 2, text: 'é' },
      { id: 3, text: null },
    ]);
    r.close();
  });

  it('names the line of invalid JSON (found while opening, in the first rows)', async () => {
    const p = join(dir, 'bad.jsonl');
    writeFileSync(p, '{"a": 1}\n{"a": 2,,}\n');
    await expect(openTableSource(p, 'jsonl')).rejects.toThrow(/bad\.jsonl:2: not valid JSON/);
  });

  it('reports a fractional value in an int field with its row and column', async () => {
    const p = join(dir, 'frac.jsonl');
    writeFileSync(p, '{"a": 1}\n{"a": 2.5}\n');
    const src = await openTableSource(p, 'jsonl');
    // Bad cells come out as skip markers; the writer's onError policy decides.
    const reasons: string[] = [];
    for await (const s of src.samples([{ name: 'a', type: 'int' }])) {
      const m = (s as { __betonSkip?: { reason: string } }).__betonSkip;
      if (m) reasons.push(m.reason);
    }
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/frac\.jsonl: row 1 \(line 2\), column "a" → field "a" \(int\): expected an integer, got 2\.5/);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FieldConfig } from '../../core/api/build-config.js';
import type { NDArray } from '../../core/fields/ndarray-field.js';
import { BetonEncodeError } from '../../core/format/errors.js';
import { openTableSource } from '../../core/sources/tables/open-table.js';
import { openSource } from '../../core/sources/open-source.js';
import { buildAndOpen, readAll, tempDir } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-csv-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

/** Seeded generator so failures replay. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const x of it) all.push(x);
  return all;
}

describe('CSV source', () => {
  const rows = [
    { id: 1, score: 0.5, name: 'alpha', big: '9007199254740993' },
    { id: -2, score: 2, name: 'beta, with comma', big: '-12' },
    { id: 3, score: 1e-7, name: 'line\nbreak "quoted"', big: '0' },
    { id: 40, score: -3.25, name: '', big: '7' },
  ];
  const csv = (sep: string): string =>
    [
      'id,score,name,big'.replaceAll(',', sep),
      ...rows.map((r) => [r.id, r.score, `"${r.name.replaceAll('"', '""')}"`, r.big].join(sep)),
    ].join('\r\n') + '\r\n';

  it('infers int / float / json, counts rows, and round-trips every value', async () => {
    const p = join(dir, 'basic.csv');
    writeFileSync(p, '\ufeff' + csv(','));
    const src = await openTableSource(p, 'csv');
    expect(src.kind).toBe('csv');
    expect(src.length).toBe(4); // quoted newline: counted by parsing, not by lines
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'id', type: 'int' },
      { name: 'score', type: 'float' },
      { name: 'name', type: 'json' },
      { name: 'big', type: 'int' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    expect(r.numSamples).toBe(4);
    readAll(r).forEach((s, i) => {
      expect(s.id).toBe(BigInt(rows[i]!.id));
      expect(s.score).toBe(rows[i]!.score);
      expect(s.name).toBe(rows[i]!.name);
      expect(s.big).toBe(BigInt(rows[i]!.big)); // beyond 2^53: exact
    });
    r.close();
  });

  it('reads TSV, and honours a range', async () => {
    const p = join(dir, 'basic.tsv');
    writeFileSync(p, csv('\t'));
    const src = await openSource({ type: 'table', path: 'basic.tsv' }, dir);
    expect(src.kind).toBe('tsv');
    const fields = await src.detectSchema();
    const r = await buildAndOpen(src, fields, out(), { start: 1, end: 3 });
    expect(readAll(r).map((s) => s.id)).toEqual([-2n, 3n]);
    r.close();
    const tail = await collect(src.samples([{ name: 'id', type: 'int' }], { start: 3, end: Number.POSITIVE_INFINITY }));
    expect(tail).toEqual([{ id: 40 }]);
  });

  it('maps 784 pixel columns to one (28, 28) uint8 array', async () => {
    const rand = rng(7);
    const header = ['label', ...Array.from({ length: 784 }, (_, i) => `pixel${i}`)];
    const images = Array.from({ length: 6 }, () => Uint8Array.from({ length: 784 }, () => Math.floor(rand() * 256)));
    const labels = images.map((_, i) => i % 10);
    writeFileSync(
      join(dir, 'mnist.csv'),
      [header.join(','), ...images.map((img, i) => `${labels[i]},${Array.from(img).join(',')}`)].join('\n') + '\n',
    );
    const src = await openTableSource(join(dir, 'mnist.csv'), 'csv');

    // Inference groups the numbered run into one array.
    const inferred = await src.detectSchema();
    expect(inferred).toEqual([
      { name: 'label', type: 'int' },
      { name: 'pixel', type: 'ndarray', dtype: 'int64', shape: [784], columns: ['pixel*'] },
    ]);

    const fields: FieldConfig[] = [
      { name: 'image', type: 'ndarray', dtype: 'uint8', shape: [28, 28], columns: ['pixel*'] },
      { name: 'label', type: 'int' },
    ];
    const r = await buildAndOpen(src, fields, out());
    readAll(r).forEach((s, i) => {
      const a = s.image as NDArray;
      expect(a.dtype).toBe('|u1');
      expect(a.shape).toEqual([28, 28]);
      expect(Array.from(a.bytes)).toEqual(Array.from(images[i]!));
      expect(s.label).toBe(BigInt(labels[i]!));
    });
    r.close();
  });

  it('shortens and sanitises column names, recording the original column', async () => {
    const p = join(dir, 'names.csv');
    writeFileSync(p, 'a very long column name here,a very long column name too,température,ok name\n1,2,3,4\n');
    const src = await openTableSource(p, 'csv');
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'a_very_long_colu', type: 'int', columns: ['a very long column name here'] },
      { name: 'a_very_long_co_2', type: 'int', columns: ['a very long column name too'] },
      { name: 'temperature', type: 'int', columns: ['température'] },
      { name: 'ok name', type: 'int' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    expect(r.read(0)).toEqual({ a_very_long_colu: 1n, a_very_long_co_2: 2n, temperature: 3n, 'ok name': 4n });
    r.close();
  });

  it('reads integers with gaps as float (NaN), like pandas', async () => {
    const p = join(dir, 'gaps.csv');
    writeFileSync(p, 'x,y\n1,a\n,b\n3,NA\n');
    const src = await openTableSource(p, 'csv');
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'x', type: 'float' },
      { name: 'y', type: 'json' },
    ]);
    const got = await collect(src.samples(fields));
    expect(got.map((s) => (s as { x: number }).x)).toEqual([1, NaN, 3]);
    expect(got.map((s) => (s as { y: string }).y)).toEqual(['a', 'b', 'NA']);
  });

  it('stores strings as bytes when asked', async () => {
    const p = join(dir, 'bytes.csv');
    writeFileSync(p, 'text\nhé\n');
    const src = await openSource({ type: 'table', path: p }, dir, { strings: 'bytes' });
    const fields = await src.detectSchema();
    expect(fields).toEqual([{ name: 'text', type: 'bytes' }]);
    const r = await buildAndOpen(src, fields, out());
    expect(new TextDecoder().decode(r.read(0).text as Uint8Array)).toBe('hé');
    r.close();
  });

  describe('errors name the file, row, column and field', () => {
    const p = join(dir, 'bad.csv');
    writeFileSync(p, 'a,b,c\n1,2,3\n4,x,6\n7,8,300\n');

    // Mapping errors throw at once; a bad cell comes out as a skip marker, which the
    // writer turns into an error (onError 'fail') naming the sample and field.
    const firstError = async (fields: FieldConfig[]): Promise<BetonEncodeError> => {
      try {
        const src = await openTableSource(p, 'csv');
        for (const s of await collect(src.samples(fields))) {
          const m = (s as { __betonSkip?: { reason: string; field?: string } }).__betonSkip;
          if (m)
            return new BetonEncodeError('BAD_VALUE', m.reason, {
              sample: Number(/row (\d+)/.exec(m.reason)?.[1]),
              ...(m.field ? { field: m.field } : {}),
            });
        }
      } catch (e) {
        return e as BetonEncodeError;
      }
      throw new Error('expected an error');
    };

    it('missing column', async () => {
      const e = await firstError([{ name: 'zz', type: 'int' }]);
      expect(e).toBeInstanceOf(BetonEncodeError);
      expect(e.code).toBe('BAD_SCHEMA');
      expect(e.message).toContain('bad.csv');
      expect(e.message).toContain('no column "zz"');
      expect(e.message).toContain('"a", "b", "c"');
    });

    it('glob matching nothing', async () => {
      const e = await firstError([{ name: 'v', type: 'ndarray', dtype: 'uint8', shape: [2], columns: ['pix*'] }]);
      expect(e.message).toContain('no column matches "pix*"');
    });

    it('non-numeric value in a numeric field', async () => {
      const e = await firstError([{ name: 'b', type: 'float' }]);
      expect(e.code).toBe('BAD_VALUE');
      expect(e.message).toMatch(/bad\.csv: row 1 \(line 3\), column "b" → field "b" \(float\): expected a number, got "x"/);
      expect(e.details).toMatchObject({ sample: 1, field: 'b' });
    });

    it('wrong element count', async () => {
      const e = await firstError([{ name: 'v', type: 'ndarray', dtype: 'int32', shape: [4], columns: ['a', 'c'] }]);
      expect(e.message).toContain('row 0');
      expect(e.message).toContain('needs 4 elements for shape [4], got 2 from a, c');
    });

    it('value outside the dtype', async () => {
      const e = await firstError([{ name: 'v', type: 'ndarray', dtype: 'uint8', shape: [2], columns: ['a', 'c'] }]);
      expect(e.message).toContain('row 2');
      expect(e.message).toContain('column "c"');
      expect(e.message).toContain('outside the range of dtype |u1');
    });

    it('a record with the wrong number of fields', async () => {
      const q = join(dir, 'ragged.csv');
      writeFileSync(q, 'a,b\n1,2\n3\n');
      const src = await openTableSource(q, 'csv');
      await expect(collect(src.samples([{ name: 'a', type: 'int' }]))).rejects.toThrow(/ragged\.csv: .*line 3/);
    });

    it('an empty file', async () => {
      const q = join(dir, 'empty.csv');
      writeFileSync(q, '');
      await expect(openTableSource(q, 'csv')).rejects.toThrow(/header row/);
    });
  });
});

import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecodedImage } from '../../core/fields/rgb-image-field.js';
import { ndarrayTypedView, type NDArray } from '../../core/fields/ndarray-field.js';
import { openSource } from '../../core/sources/open-source.js';
import { openTableSource } from '../../core/sources/tables/open-table.js';
import { buildAndOpen, readAll, tempDir } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-pq-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

describe('Parquet source', () => {
  const N = 23;
  const ids = Array.from({ length: N }, (_, i) => BigInt(i * 1000) - 5n);
  const small = Array.from({ length: N }, (_, i) => i % 7);
  const weights = Array.from({ length: N }, (_, i) => i); // DOUBLE column of whole numbers
  const names = Array.from({ length: N }, (_, i) => `item-${i}-é`);
  const flags = Array.from({ length: N }, (_, i) => i % 3 === 0);
  const emb = Array.from({ length: N }, (_, i) => [i, i + 0.5, -i]);
  const path = join(dir, 'table.parquet');
  parquetWriteFile({
    filename: path,
    columnData: [
      { name: 'id', data: ids },
      { name: 'small', data: small },
      { name: 'weight', data: weights },
      { name: 'name', data: names },
      { name: 'flag', data: flags },
      { name: 'emb', data: emb },
    ],
    schema: [
      { name: 'root', num_children: 6 },
      { name: 'id', type: 'INT64', repetition_type: 'REQUIRED' },
      { name: 'small', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'weight', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'flag', type: 'BOOLEAN', repetition_type: 'REQUIRED' },
      { name: 'emb', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
    ],
    rowGroupSize: 5, // several row groups, so ranges cross group boundaries
  });

  it('length from the footer; types from the schema (DOUBLE stays float), lists become arrays', async () => {
    const src = await openTableSource(path, 'parquet');
    expect(src.kind).toBe('parquet');
    expect(src.length).toBe(N);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'id', type: 'int' },
      { name: 'small', type: 'int' },
      { name: 'weight', type: 'float' },
      { name: 'name', type: 'json' },
      { name: 'flag', type: 'int' },
      { name: 'emb', type: 'ndarray', dtype: 'float32', shape: [3] },
    ]);
    const r = await buildAndOpen(src, fields, out());
    const got = readAll(r);
    expect(got.map((s) => s.id)).toEqual(ids);
    expect(got.map((s) => s.small)).toEqual(small.map(BigInt));
    expect(got.map((s) => s.weight)).toEqual(weights);
    expect(got.map((s) => s.name)).toEqual(names);
    expect(got.map((s) => s.flag)).toEqual(flags.map((f) => (f ? 1n : 0n)));
    expect(got.map((s) => Array.from(ndarrayTypedView(s.emb as NDArray) as Float32Array))).toEqual(emb);
    r.close();
  });

  it('a range across row groups, reading only the used columns', async () => {
    const src = await openSource({ type: 'table', path: 'table.parquet' }, dir);
    const r = await buildAndOpen(src, [{ name: 'n', type: 'json', columns: ['name'] }], out(), { start: 3, end: 17 });
    expect(readAll(r).map((s) => s.n)).toEqual(names.slice(3, 17));
    r.close();
  });

  it('nullable columns: ints with nulls read as float (NaN), strings as null', async () => {
    const p = join(dir, 'nulls.parquet');
    parquetWriteFile({
      filename: p,
      columnData: [
        { name: 'k', data: [1, null, 3] },
        { name: 'full', data: [4, 5, 6] },
        { name: 's', data: ['a', null, 'c'] },
      ],
    });
    const src = await openTableSource(p, 'parquet');
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'k', type: 'float' },
      { name: 'full', type: 'int' }, // nullable in the schema, but the statistics count no nulls
      { name: 's', type: 'json' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    expect(readAll(r)).toEqual([
      { k: 1, full: 4n, s: 'a' },
      { k: NaN, full: 5n, s: null },
      { k: 3, full: 6n, s: 'c' },
    ]);
    r.close();
  });

  it('large row groups with an offset index are read in slices', async () => {
    const M = 10_000;
    const p = join(dir, 'big.parquet');
    const v = Array.from({ length: M }, (_, i) => i * 3);
    parquetWriteFile({ filename: p, columnData: [{ name: 'v', data: v, type: 'INT32' }], rowGroupSize: 6000, pageSize: 2048 });
    const src = await openTableSource(p, 'parquet');
    const got: unknown[] = [];
    for await (const s of src.samples([{ name: 'v', type: 'int' }], { start: 3990, end: 8200 })) got.push((s as { v: unknown }).v);
    expect(got).toEqual(v.slice(3990, 8200));
  });

  it('encoded image structs ({bytes, path}, as Hugging Face stores them) become rgb_image', async () => {
    const pngs = await Promise.all(
      [10, 120, 250].map((g) =>
        sharp({ create: { width: 4, height: 3, channels: 3, background: { r: g, g: 0, b: 255 - g } } })
          .png()
          .toBuffer()
          .then((b) => new Uint8Array(b)),
      ),
    );
    const p = join(dir, 'images.parquet');
    parquetWriteFile({
      filename: p,
      columnData: [
        { name: 'image', data: pngs.map((bytes, i) => ({ bytes, path: `${i}.png` })) },
        { name: 'label', data: [0, 1, 2] },
      ],
      schema: [
        { name: 'root', num_children: 2 },
        { name: 'image', repetition_type: 'OPTIONAL', num_children: 2 },
        { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
        { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'label', type: 'INT32', repetition_type: 'REQUIRED' },
      ],
    });
    const src = await openTableSource(p, 'parquet');
    const fields = await src.detectSchema();
    expect(fields.map((f) => [f.name, f.type])).toEqual([
      ['image', 'rgb_image'],
      ['label', 'int'],
    ]);
    const r = await buildAndOpen(src, fields, out());
    readAll(r).forEach((s, i) => {
      const img = s.image as DecodedImage;
      expect([img.width, img.height]).toEqual([4, 3]);
      expect(Array.from(img.data.subarray(0, 3))).toEqual([[10, 120, 250][i], 0, 255 - [10, 120, 250][i]!]);
      expect(s.label).toBe(BigInt(i));
    });
    r.close();
  });

  it('names a file that is not Parquet', async () => {
    const p = join(dir, 'fake.parquet');
    (await import('node:fs')).writeFileSync(p, 'not parquet at all');
    await expect(openTableSource(p, 'parquet')).rejects.toThrow(/fake\.parquet: cannot read Parquet metadata/);
  });
});

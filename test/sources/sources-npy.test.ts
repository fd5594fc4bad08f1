import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../core/fields/ndarray-field.js';
import { parseDType, writeElement } from '../../core/format/dtype.js';
import { openTableSource } from '../../core/sources/tables/open-table.js';
import { openSource } from '../../core/sources/open-source.js';
import { buildAndOpen, bytesOf, npyBytes, readAll, tempDir, zipBytes } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-npy-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Random element bytes for `count` elements of `descr`. */
function randomData(descr: string, count: number, seed: number): Uint8Array {
  const d = parseDType(descr);
  const rand = rng(seed);
  const bytes = new Uint8Array(count * d.itemsize);
  for (let i = 0; i < count; i++) {
    const x =
      d.kind === 'b'
        ? rand() < 0.5
        : d.kind === 'f' || d.kind === 'c'
          ? Math.round((rand() - 0.5) * 1000) / 8
          : Math.floor(rand() * 100) - (d.kind === 'i' ? 50 : 0);
    writeElement(d, bytes, i, d.itemsize === 8 && (d.kind === 'i' || d.kind === 'u') ? BigInt(Number(x)) : x);
  }
  return bytes;
}

describe('.npy source', () => {
  it.each([
    ['<f4', [7, 3, 4]],
    ['|u1', [5, 28, 28]],
    ['>i4', [6, 2]],
    ['<f2', [4, 5]],
    ['<c8', [3, 2]],
    ['<i8', [9, 1]],
  ] as const)('%s with shape %j: an ndarray of shape[1:], every row equal', async (descr, shape) => {
    const rows = shape[0];
    const per = shape.slice(1).reduce((a: number, b: number) => a * b, 1);
    const itemsize = parseDType(descr).itemsize;
    const data = randomData(descr, rows * per, descr.charCodeAt(1) + per);
    const p = join(dir, `arr_${descr.replace(/\W/g, '')}.npy`);
    writeFileSync(p, npyBytes(descr, [...shape], data, { version: descr === '>i4' ? 2 : 1 }));
    const src = await openTableSource(p, 'npy');
    expect(src.length).toBe(rows);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: `arr_${descr.replace(/\W/g, '')}`, type: 'ndarray', dtype: parseDType(descr).str, shape: shape.slice(1) },
    ]);
    const r = await buildAndOpen(src, fields, out());
    expect(r.numSamples).toBe(rows);
    readAll(r).forEach((s, i) => {
      const a = Object.values(s)[0] as NDArray;
      expect(a.shape).toEqual(shape.slice(1));
      expect(Array.from(a.bytes)).toEqual(Array.from(data.subarray(i * per * itemsize, (i + 1) * per * itemsize)));
    });
    r.close();
  });

  it('1-D arrays give int and float fields (bool as int); a range seeks', async () => {
    const ints = BigInt64Array.from([5n, -3n, 2n ** 62n, 0n, 11n]);
    const floats = Float64Array.from([0.5, -1e300, NaN, 3, 7.25]);
    const bools = Uint8Array.from([1, 0, 0, 1, 1]);
    writeFileSync(join(dir, 'labels.npy'), npyBytes('<i8', [5], bytesOf(ints), { version: 3 }));
    writeFileSync(join(dir, 'weights.npy'), npyBytes('<f8', [5], bytesOf(floats)));
    writeFileSync(join(dir, 'mask.npy'), npyBytes('|b1', [5], bools));

    const li = await openSource({ type: 'table', path: 'labels.npy' }, dir);
    expect(li.kind).toBe('npy');
    expect(await li.detectSchema()).toEqual([{ name: 'labels', type: 'int' }]);
    const r1 = await buildAndOpen(li, [{ name: 'labels', type: 'int' }], out(), { start: 2, end: 4 });
    expect(readAll(r1).map((s) => s.labels)).toEqual([2n ** 62n, 0n]);
    r1.close();

    const wf = await openTableSource(join(dir, 'weights.npy'), 'npy');
    expect(await wf.detectSchema()).toEqual([{ name: 'weights', type: 'float' }]);
    const r2 = await buildAndOpen(wf, [{ name: 'w', type: 'float', columns: ['weights'] }], out());
    expect(readAll(r2).map((s) => s.w)).toEqual(Array.from(floats));
    r2.close();

    const mk = await openTableSource(join(dir, 'mask.npy'), 'npy');
    expect(await mk.detectSchema()).toEqual([{ name: 'mask', type: 'int' }]);
    const r3 = await buildAndOpen(mk, [{ name: 'mask', type: 'int' }], out());
    expect(readAll(r3).map((s) => s.mask)).toEqual([1n, 0n, 0n, 1n, 1n]);
    r3.close();
  });

  it('converts to another dtype when the field asks for one', async () => {
    const data = Float32Array.from([1, 2, 3, 4, 5, 6]);
    writeFileSync(join(dir, 'conv.npy'), npyBytes('<f4', [2, 3], bytesOf(data)));
    const src = await openTableSource(join(dir, 'conv.npy'), 'npy');
    const r = await buildAndOpen(src, [{ name: 'conv', type: 'ndarray', dtype: 'uint8', shape: [3] }], out());
    expect(readAll(r).map((s) => Array.from((s.conv as NDArray).bytes))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    r.close();
  });

  it('unicode strings become json', async () => {
    const words = ['cat', 'dög', ''];
    const data = new Uint8Array(3 * 4 * 4);
    const v = new DataView(data.buffer);
    words.forEach((w, i) => [...w].forEach((ch, k) => v.setUint32((i * 4 + k) * 4, ch.codePointAt(0)!, true)));
    writeFileSync(join(dir, 'words.npy'), npyBytes('<U4', [3], data));
    const src = await openTableSource(join(dir, 'words.npy'), 'npy');
    expect(await src.detectSchema()).toEqual([{ name: 'words', type: 'json' }]);
    const r = await buildAndOpen(src, await src.detectSchema(), out());
    expect(readAll(r).map((s) => s.words)).toEqual(words);
    r.close();
  });

  it('refuses Fortran order, object arrays and 0-d arrays clearly', async () => {
    writeFileSync(join(dir, 'f.npy'), npyBytes('<f4', [2, 2], new Uint8Array(16), { fortran: true }));
    await expect(openTableSource(join(dir, 'f.npy'), 'npy')).rejects.toThrow(
      /f\.npy: Fortran-ordered arrays are not supported; .*ascontiguousarray/,
    );
    writeFileSync(join(dir, 'o.npy'), npyBytes('|O', [2], new Uint8Array(16)));
    await expect(openTableSource(join(dir, 'o.npy'), 'npy')).rejects.toThrow(/object arrays/);
    writeFileSync(join(dir, 'z.npy'), npyBytes('<f4', [], new Uint8Array(4)));
    await expect(openTableSource(join(dir, 'z.npy'), 'npy')).rejects.toThrow(/0-d array/);
    writeFileSync(join(dir, 'bad.npy'), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
    await expect(openTableSource(join(dir, 'bad.npy'), 'npy')).rejects.toThrow(/not a \.npy file/);
  });

  it('names a truncated file', async () => {
    const full = npyBytes('<f4', [4, 2], new Uint8Array(32));
    writeFileSync(join(dir, 'trunc.npy'), full.subarray(0, full.byteLength - 5));
    const src = await openTableSource(join(dir, 'trunc.npy'), 'npy');
    const all = async (): Promise<void> => {
      for await (const _ of src.samples(await src.detectSchema()));
    };
    await expect(all()).rejects.toThrow(/trunc\.npy: truncated: the header promises 4 rows of 8 bytes, data ends in row 3/);
  });
});

describe('.npz source', () => {
  const N = 2500; // several 1 MiB batches of `x` rows
  const x = randomData('<f4', N * 120, 1); // 480 bytes a row
  const y = BigInt64Array.from({ length: N }, (_, i) => BigInt(i % 10));
  const zipped = zipBytes([
    { name: 'x.npy', data: npyBytes('<f4', [N, 10, 12], x), deflate: false },
    { name: 'y.npy', data: npyBytes('<i8', [N], bytesOf(y)), deflate: true },
  ]);
  const p = join(dir, 'data.npz');
  writeFileSync(p, zipped);

  it('one field per member, stored read in place and deflated streamed, every row equal', async () => {
    const src = await openTableSource(p, 'npz');
    expect(src.length).toBe(N);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'x', type: 'ndarray', dtype: '<f4', shape: [10, 12] },
      { name: 'y', type: 'int' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    expect(r.numSamples).toBe(N);
    let bad = 0;
    for (let i = 0; i < N; i += 1) {
      const s = r.read(i);
      // Buffer.equals: a deep toEqual per row would dominate the test's time.
      if (!Buffer.from((s.x as NDArray).bytes).equals(x.subarray(i * 480, (i + 1) * 480)) || s.y !== y[i]) bad++;
    }
    expect(bad).toBe(0);
    r.close();
  });

  it('a range skips (seek in the stored member, inflate-and-drop in the deflated one)', async () => {
    const src = await openTableSource(p, 'npz');
    const r = await buildAndOpen(src, await src.detectSchema(), out(), { start: 2300, end: 2305 });
    expect(r.numSamples).toBe(5);
    readAll(r).forEach((s, k) => {
      const i = 2300 + k;
      expect((s.x as NDArray).bytes).toEqual(x.subarray(i * 480, (i + 1) * 480));
      expect(s.y).toBe(y[i]);
    });
    r.close();
  });

  it('reads only the members the fields use', async () => {
    const src = await openTableSource(p, 'npz');
    const got: unknown[] = [];
    for await (const s of src.samples([{ name: 'y', type: 'int' }], { start: 0, end: 3 })) got.push(s);
    expect(got).toEqual([{ y: 0n }, { y: 1n }, { y: 2n }]);
  });

  it('refuses members of different lengths, naming them', async () => {
    const q = join(dir, 'ragged.npz');
    writeFileSync(
      q,
      zipBytes([
        { name: 'a.npy', data: npyBytes('<f4', [3], new Uint8Array(12)), deflate: false },
        { name: 'b.npy', data: npyBytes('<f4', [4], new Uint8Array(16)), deflate: true },
      ]),
    );
    await expect(openTableSource(q, 'npz')).rejects.toThrow(/same length along axis 0.*a\.npy has 3, b\.npy has 4/);
  });
});

describe('files written by numpy itself (test/fixtures/sources, made with numpy 2.4)', () => {
  // a = np.arange(12, dtype=int32).reshape(4, 3) * 7 - 20; b = [0.5, -1.25, 3.0, 1e-3]; c = ['ab', 'cde', '', 'z']
  const fixtures = join(import.meta.dirname, '..', 'fixtures', 'sources');
  const a = Array.from({ length: 4 }, (_, i) => [0, 1, 2].map((k) => (i * 3 + k) * 7 - 20));

  it.each(['numpy-savez.npz', 'numpy-savez-compressed.npz'])('%s (ZIP64 local headers, stored/deflated)', async (file) => {
    const src = await openTableSource(join(fixtures, file), 'npz');
    expect(src.length).toBe(4);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'a', type: 'ndarray', dtype: '<i4', shape: [3] },
      { name: 'b', type: 'float' },
      { name: 'c', type: 'json' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    const got = readAll(r);
    expect(got.map((s) => Array.from(new Int32Array((s.a as NDArray).bytes.slice().buffer)))).toEqual(a);
    expect(got.map((s) => s.b)).toEqual([0.5, -1.25, 3.0, 1e-3]);
    expect(got.map((s) => s.c)).toEqual(['ab', 'cde', '', 'z']);
    r.close();
  });

  it('numpy-u1.npy', async () => {
    const src = await openTableSource(join(fixtures, 'numpy-u1.npy'), 'npy');
    expect(await src.detectSchema()).toEqual([{ name: 'numpy-u1', type: 'ndarray', dtype: '|u1', shape: [3, 4] }]);
    const r = await buildAndOpen(src, await src.detectSchema(), out());
    expect(readAll(r).map((s) => Array.from((s['numpy-u1'] as NDArray).bytes))).toEqual([
      Array.from({ length: 12 }, (_, i) => i),
      Array.from({ length: 12 }, (_, i) => i + 12),
    ]);
    r.close();
  });
});

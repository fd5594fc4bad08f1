import { describe, expect, it } from 'vitest';
import type { FieldConfig } from '../../core/api/build-config.js';
import { compileMapper, globToRegExp, resolveColumns } from '../../core/sources/tables/column-mapping.js';
import { fitsFieldName, uniqueFieldNames } from '../../core/sources/tables/field-names.js';
import { inferColumnType, inferSchema } from '../../core/sources/tables/infer-schema.js';
import { parsePythonLiteral } from '../../core/sources/npy/python-literal.js';

describe('field names', () => {
  it('keeps names that fit, shortens, transliterates and de-duplicates the rest', () => {
    expect(fitsFieldName('sepal.length')).toBe(true);
    expect(fitsFieldName('x'.repeat(17))).toBe(false);
    expect(uniqueFieldNames(['id', 'Größe (cm)', 'a'.repeat(20), 'a'.repeat(21), '日本', '日本', 'id'])).toEqual([
      'id',
      'Gro_e_cm', // NFKD drops accents; letters with no ASCII form become '_'
      'a'.repeat(16),
      'a'.repeat(14) + '_2',
      'col4',
      'col5',
      'id_2',
    ]);
  });
});

describe('column types', () => {
  const t = (values: unknown[], textual = false, hint?: 'int' | 'float'): unknown => inferColumnType(values, { textual, hint });

  it('numbers', () => {
    expect(t([1, 2, 3n, true])).toEqual({ kind: 'int' });
    expect(t([1, 2.5])).toEqual({ kind: 'float', missing: false });
    expect(t([1, 2], false, 'float')).toEqual({ kind: 'float', missing: false });
    expect(t([1, null])).toEqual({ kind: 'float', missing: true });
    expect(t(['1', '-2', '+3'], true)).toEqual({ kind: 'int' });
    expect(t(['1', '2.0'], true)).toEqual({ kind: 'float', missing: false });
    expect(t(['1e3', 'inf', 'nan'], true)).toEqual({ kind: 'float', missing: true }); // "nan" is pandas' NA
    expect(t(['True', 'false'], true)).toEqual({ kind: 'int' });
  });

  it('strings, bytes, lists, mixtures', () => {
    expect(t(['a', 'b', null])).toEqual({ kind: 'string', missing: true });
    expect(t(['1', 'x'], true)).toEqual({ kind: 'json', missing: false });
    expect(t([new Uint8Array(2)])).toEqual({ kind: 'bytes', missing: false });
    expect(
      t([
        [1, 2],
        [3, 4],
      ]),
    ).toEqual({ kind: 'ndarray', dtype: 'int64', shape: [2] });
    expect(
      t([
        [[1.5], [2]],
        [[3], [4]],
      ]),
    ).toEqual({ kind: 'ndarray', dtype: 'float32', shape: [2, 1] });
    expect(t([Float32Array.from([1, 2, 3])], false, 'float')).toEqual({ kind: 'ndarray', dtype: 'float32', shape: [3] });
    expect(t([[1, 2], [3]])).toEqual({ kind: 'json', missing: false }); // ragged
    expect(t([[1, 'a']])).toEqual({ kind: 'json', missing: false });
    expect(t([[]])).toEqual({ kind: 'json', missing: false }); // zero-size arrays cannot be stored
    expect(t([1, 'a'])).toEqual({ kind: 'json', missing: false });
    expect(t([{ a: 1 }])).toEqual({ kind: 'json', missing: false });
    expect(t([])).toEqual({ kind: 'json', missing: false });
  });

  it('groups numbered runs only when long and consecutive', () => {
    const columns = ['y', ...Array.from({ length: 8 }, (_, i) => `f_${i + 1}`), 'g1', 'g2', 'pix0', 'pix1'];
    const rows = [[1, ...Array.from({ length: 8 }, (_, i) => i / 2), 5, 6, 7, 8]];
    expect(inferSchema({ columns, rows, textual: false })).toEqual([
      { name: 'y', type: 'int' },
      { name: 'f', type: 'ndarray', dtype: 'float32', shape: [8], columns: ['f_*'] },
      { name: 'g1', type: 'int' },
      { name: 'g2', type: 'int' },
      { name: 'pix0', type: 'int' },
      { name: 'pix1', type: 'int' },
    ]);
    // A glob that would catch other columns is written out as a list.
    const cols2 = [...Array.from({ length: 8 }, (_, i) => `p${i}`), 'p_extra'];
    const fields = inferSchema({ columns: cols2, rows: [[0, 1, 2, 3, 4, 5, 6, 7, 'x']], textual: false });
    expect(fields[0]).toEqual({ name: 'p', type: 'ndarray', dtype: 'int64', shape: [8], columns: cols2.slice(0, 8) });
  });
});

describe('column mapping', () => {
  const columns = ['label', 'pixel1', 'pixel2', 'pixel10', 'a*b', 'name'];

  it('globs expand in column order; an exact name wins over a glob reading', () => {
    expect(globToRegExp('pixel*').test('pixel10')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
    const f = (cols: string[]): FieldConfig => ({ name: 'v', type: 'ndarray', dtype: 'uint8', shape: [1], columns: cols });
    expect(resolveColumns(f(['pixel*']), columns, 'x')).toEqual([1, 2, 3]);
    expect(resolveColumns(f(['pixel1*', 'label']), columns, 'x')).toEqual([1, 3, 0]);
    expect(resolveColumns(f(['a*b']), columns, 'x')).toEqual([4]);
    expect(resolveColumns({ name: 'name', type: 'json' }, columns, 'x')).toEqual([5]);
  });

  it('single-column fields refuse several columns', () => {
    expect(() => compileMapper([{ name: 'v', type: 'int', columns: ['pixel*'] }], columns, { path: 'f.csv', baseDir: '/' })).toThrow(
      /f\.csv: field "v" \(int\): a int field takes exactly one column, got 3 \(pixel1, pixel2, pixel10\)/,
    );
  });

  it('reads only the columns the fields use', () => {
    const m = compileMapper(
      [
        { name: 'name', type: 'json' },
        { name: 'v', type: 'ndarray', dtype: 'float32', shape: [2], columns: ['pixel1', 'pixel2'] },
      ],
      columns,
      { path: 'f.csv', baseDir: '/' },
    );
    expect(m.needed).toEqual([1, 2, 5]);
    const s = m.map({ index: 0, values: [undefined, '1.5', '[2]', undefined, undefined, 'n'] });
    expect(s.name).toBe('n');
    expect(Array.from(new Float32Array((s.v as { bytes: Uint8Array }).bytes.buffer))).toEqual([1.5, 2]);
  });
});

describe('python literal (npy headers)', () => {
  it('parses the header dict forms numpy writes', () => {
    expect(parsePythonLiteral("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }")).toEqual({
      descr: '<f4',
      fortran_order: false,
      shape: [3, 4],
    });
    expect(parsePythonLiteral("{'descr': [('a', '<i4')], 'shape': (2L,)}")).toEqual({ descr: [['a', '<i4']], shape: [2] });
    expect(() => parsePythonLiteral("{'a': 1} x")).toThrow(/trailing/);
  });
});

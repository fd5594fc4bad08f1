import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { CsvTable } from '../../core/sources/tables/csv-source.js';
import { categoryMapper, distinctCategories } from '../../core/sources/tables/label-mapping.js';
import { openSource } from '../../core/sources/open-source.js';
import { ValueProblem } from '../../core/sources/tables/value-coercion.js';
import { buildAndOpen, readAll, tempDir } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-labels-');
afterAll(cleanup);

describe('a string column as an int label (category → int)', () => {
  it('maps each listed value to its index and names the categories when a value is not listed', () => {
    const m = categoryMapper(['bird', 'cat', 'dog']);
    expect([m('cat'), m(' dog '), m('bird')]).toEqual([1, 2, 0]);
    expect(() => m('cow')).toThrow(ValueProblem);
    expect(() => m('cow')).toThrow(/"cow" is not one of the 3 categories \("bird", "cat", "dog"\)/);
    expect(() => m(null)).toThrow(/a missing value/);
  });

  it("reads a column's distinct values over every row, sorted, missing cells left out", async () => {
    const p = join(dir, 'species.csv');
    writeFileSync(p, 'id,species\n0,dog\n1,cat\n2,\n3,bird\n4,cat\n');
    const r = await distinctCategories(await CsvTable.open(p, 'csv'), 'species');
    expect(r).toEqual({ categories: ['bird', 'cat', 'dog'], rows: 5 });
    await expect(distinctCategories(await CsvTable.open(p, 'csv'), 'nope')).rejects.toThrow(/no column "nope"/);
  });

  it('builds the labels as their indices; the config refuses repeated categories', async () => {
    const p = join(dir, 'build.csv');
    writeFileSync(p, 'species,w\ncat,1\ndog,2\nbird,3\n');
    const cfg = parseBuildConfig({
      source: { type: 'table', path: p },
      output: join(dir, 'o.beton'),
      fields: [{ name: 'label', type: 'int', categories: ['bird', 'cat', 'dog'], columns: ['species'] }],
    });
    if (!cfg.ok) throw new Error(cfg.errors.join('; '));
    const src = await openSource(cfg.value.source, dir);
    const r = await buildAndOpen(src, cfg.value.fields!, join(dir, 'o.beton'));
    expect(readAll(r).map((s) => s.label)).toEqual([1n, 2n, 0n]);
    r.close();
    const bad = parseBuildConfig({
      source: { type: 'table', path: p },
      output: 'x.beton',
      fields: [{ name: 'label', type: 'int', categories: ['a', 'a'] }],
    });
    expect(bad.ok).toBe(false);
  });
});

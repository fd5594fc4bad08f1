import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import type { FieldConfig } from '../../core/api/build-config.js';
import { detectSourceConfig, openSource } from '../../core/sources/open-source.js';
import type { DatasetSource } from '../../core/sources/common/source.js';

const dir = mkdtempSync(join(tmpdir(), 'many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function all(src: DatasetSource, fields: FieldConfig[], range?: { start: number; end: number }): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const s of src.samples(fields, range)) out.push(s);
  return out;
}

describe('many files as one table', () => {
  // Written out of name order: the table reads them in name order.
  writeFileSync(join(dir, 'train-00002-of-00003.csv'), 'x,name\n5,e\n');
  writeFileSync(join(dir, 'train-00000-of-00003.csv'), 'x,name\n1,a\n2,b\n');
  writeFileSync(join(dir, 'train-00001-of-00003.csv'), 'x,name\n3,c\n4,d\n');

  it('a glob reads the files in name order, rows numbered across them', async () => {
    const pattern = join(dir, 'train-*.csv');
    const cfg = await detectSourceConfig(pattern);
    expect(cfg).toEqual({ type: 'table', path: pattern, format: 'csv' });
    const src = await openSource(cfg, dir);
    expect(src.length).toBe(5);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'x', type: 'int' },
      { name: 'name', type: 'json' },
    ]);
    expect(await all(src, fields)).toEqual([1, 2, 3, 4, 5].map((x) => ({ x, name: 'abcde'[x - 1] })));
    // A slice that starts in the second file skips the first without reading it.
    expect(await all(src, fields, { start: 3, end: 5 })).toEqual([
      { x: 4, name: 'd' },
      { x: 5, name: 'e' },
    ]);
  });

  it('Parquet shards named as Hugging Face names them: one table, declared types kept, a slice skips whole files', async () => {
    for (let k = 0; k < 3; k++) {
      parquetWriteFile({
        filename: join(dir, `train-${String(k).padStart(5, '0')}-of-00003.parquet`),
        columnData: [
          { name: 'x', data: Array.from({ length: 10 }, (_, i) => BigInt(k * 10 + i)) },
          { name: 'y', data: Array.from({ length: 10 }, (_, i) => i) },
        ],
        schema: [
          { name: 'root', num_children: 2 },
          { name: 'x', type: 'INT64', repetition_type: 'REQUIRED' },
          { name: 'y', type: 'DOUBLE', repetition_type: 'REQUIRED' },
        ],
      });
    }
    const pattern = join(dir, 'train-*-of-00003.parquet');
    const cfg = await detectSourceConfig(pattern);
    expect(cfg).toEqual({ type: 'table', path: pattern, format: 'parquet' });
    const src = await openSource(cfg, dir);
    expect(src.length).toBe(30);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      { name: 'x', type: 'int' },
      { name: 'y', type: 'float' },
    ]);
    const rows = (await all(src, fields, { start: 18, end: 22 })) as Array<{ x: bigint | number }>;
    expect(rows.map((r) => Number(r.x))).toEqual([18, 19, 20, 21]);
  });

  it('a brace list reads the files in the order written', async () => {
    const src = await openSource({ type: 'table', path: join(dir, 'train-0000{2,0}-of-00003.csv') }, dir);
    expect(await all(src, [{ name: 'x', type: 'int' }])).toEqual([{ x: 5 }, { x: 1 }, { x: 2 }]);
  });

  it('a value error names the file and its own row', async () => {
    writeFileSync(join(dir, 'v-0.jsonl'), '{"x": 1}\n');
    writeFileSync(join(dir, 'v-1.jsonl'), '{"x": 2}\n{"x": "oops"}\n');
    const src = await openSource({ type: 'table', path: join(dir, 'v-*.jsonl') }, dir);
    const out = (await all(src, [{ name: 'x', type: 'int' }])) as Array<Record<string, unknown>>;
    expect(JSON.stringify(out[2])).toMatch(/v-1\.jsonl: row 1 .*expected an integer/);
  });

  it('a file whose columns differ is named, with what differs', async () => {
    writeFileSync(join(dir, 'odd-0.csv'), 'x,name\n1,a\n');
    writeFileSync(join(dir, 'odd-1.csv'), 'x,label\n1,a\n');
    await expect(openSource({ type: 'table', path: join(dir, 'odd-*.csv') }, dir)).rejects.toThrow(
      /odd-1\.csv: its columns differ from odd-0\.csv's \(it lacks "name"; it has "label" besides\)/,
    );
    writeFileSync(join(dir, 'ord-0.csv'), 'x,name\n1,a\n');
    writeFileSync(join(dir, 'ord-1.csv'), 'name,x\na,1\n');
    await expect(openSource({ type: 'table', path: join(dir, 'ord-*.csv') }, dir)).rejects.toThrow(/ord-1\.csv: .*another order/);
  });

  it('a brace naming a missing file, and a glob matching nothing, are errors', async () => {
    await expect(openSource({ type: 'table', path: join(dir, 'train-0000{0..5}-of-00003.csv') }, dir)).rejects.toThrow(
      /train-00003-of-00003\.csv .*does not exist/,
    );
    await expect(detectSourceConfig(join(dir, 'nothing-*.csv'))).rejects.toThrow(/no file matches/);
  });
});

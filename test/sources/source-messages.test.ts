// Issue 19 item 14 (sources): a long JSON number literal is a number, not "invalid JSON";
// invalid UTF-8 in a CSV/JSONL is an error naming file and line (not stored as U+FFFD);
// an npz with two members of one name is refused (one would be lost); Parquet failures
// say the file is damaged instead of leaking `reading 'map'`; a source yielding null is a
// clear BAD_VALUE.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { openTableSource } from '../../core/sources/tables/open-table.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { PYTHON } from '../interop/ffcv.js';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-srcmsg-'));
const p = (f: string): string => join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const build = (src: string): ReturnType<typeof cli> => cli(['build', src, '-o', p('o.beton'), '--force'], { timeoutMs: 60_000 });

describe('source messages', () => {
  it('a 400-digit integer in JSONL is a number (too big for int64), not invalid JSON', () => {
    writeFileSync(p('long.jsonl'), `{"a": 1${'0'.repeat(400)}}\n{"a": 2}\n`);
    const r = build(p('long.jsonl'));
    expect(r.stderr).not.toMatch(/not valid JSON/);
    expect(r.stderr).toMatch(/does not fit in int64/);
  });

  it('a 400-digit float in JSONL builds', () => {
    writeFileSync(p('longf.jsonl'), `{"a": 1.${'5'.repeat(400)}}\n{"a": 2.5}\n`);
    const r = build(p('longf.jsonl'));
    expect(r.status, r.stderr).toBe(0);
  });

  it('invalid UTF-8 in a CSV or JSONL is an error naming file and line', () => {
    writeFileSync(p('bad.csv'), Buffer.from('a,b\n1,ok\n2,x\xffy\n3,z\n', 'latin1'));
    writeFileSync(p('bad.jsonl'), Buffer.from('{"a":"ok"}\n{"a":"x\xffy"}\n', 'latin1'));
    const c = build(p('bad.csv'));
    expect(c.status).toBe(1);
    expect(c.stderr).toContain(`${p('bad.csv')}:3: invalid UTF-8`);
    const j = build(p('bad.jsonl'));
    expect(j.status).toBe(1);
    expect(j.stderr).toContain(`${p('bad.jsonl')}:2: invalid UTF-8`);
    // Valid multi-byte text still builds.
    writeFileSync(p('good.csv'), 'a,b\n1,café\n2,日本\n');
    expect(build(p('good.csv')).status).toBe(0);
  });

  it('an npz with two members named a.npy is refused', () => {
    const py = `import numpy as np, zipfile, io, warnings\nwarnings.simplefilter('ignore')\nb = io.BytesIO(); np.save(b, np.arange(3)); d = b.getvalue()\nwith zipfile.ZipFile(${JSON.stringify(p('dup.npz'))}, 'w') as z:\n    z.writestr('a.npy', d); z.writestr('a.npy', d)`;
    const made = spawnSync(PYTHON, ['-c', py], { encoding: 'utf8', timeout: 60_000 });
    expect(made.status, made.stderr).toBe(0);
    const r = build(p('dup.npz'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/two members named a\.npy; one would be lost/);
  });

  it('a damaged Parquet file says so (no bare JS internals)', async () => {
    writeFileSync(p('d.parquet'), Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(40), Buffer.from([40, 0, 0, 0]), Buffer.from('PAR1')]));
    const err = await openTableSource(p('d.parquet'), 'parquet', {}).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^\S+d\.parquet: cannot read Parquet metadata: the file is damaged, cut short/);
  });

  it('a source yielding null is a clear BAD_VALUE, with and without workers', async () => {
    for (const numWorkers of [0, 1]) {
      const err = await new DatasetWriter(p(`n${numWorkers}.beton`), { x: new IntField() }, { numWorkers })
        .write([{ x: 1 }, null as never])
        .then(
          () => null,
          (e: Error & { code?: string }) => e,
        );
      expect(err?.code, String(err)).toBe('BAD_VALUE');
      expect(err?.message).toMatch(/sample 1 is null; a source yields one object per sample/);
    }
  }, 30_000);
});

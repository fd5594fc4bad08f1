// Issue 19 item 8, with the real FFCV: a CSV whose headers are named like Object.prototype
// members (toString, constructor, __proto__, hasOwnProperty, valueOf), built by beton, reads back
// in FFCV under the same names and values. Slow tier (python3 + FFCV);
// prototype-names.test.ts checks beton's own Reader and Loader fast.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { describeFfcv, PYTHON } from '../interop/ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-proto-ffcv-'));
const NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];
const csv = join(dir, 'p.csv');

beforeAll(async () => {
  writeFileSync(csv, `${NAMES.join(',')}\n1,2,3,4,5\n6,7,8,9,10\n`);
  const r = await cliInProcess('build', csv, '-o', `${csv}.beton`);
  if (r.code !== 0) throw new Error(r.err);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeFfcv('FFCV reads the same files', () => {
  it('field names and values', () => {
    const py = `from ffcv.reader import Reader\nr = Reader(${JSON.stringify(`${csv}.beton`)})\nprint(r.field_names, [r.metadata[n].tolist() for n in r.metadata.dtype.names])`;
    const out = spawnSync(PYTHON, ['-c', py], { cwd: '/', encoding: 'utf8', timeout: 120_000 });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe(
      `${JSON.stringify(NAMES).replace(/"/g, "'").replace(/,/g, ', ')} [[1, 6], [2, 7], [3, 8], [4, 9], [5, 10]]`,
    );
  }, 150_000);
});

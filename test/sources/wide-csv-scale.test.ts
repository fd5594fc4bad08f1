// Issue 19 item 11: a CSV with ~125k+ columns builds (no `Maximum call stack size exceeded`
// from a spread of every matching column into push), and one too wide for the header is a
// clear BAD_SCHEMA, never INTERNAL. Bounded: one row, a few MB. Slow tier (130 000 columns
// through a spawned build, twice); test/sources/wide-csv.test.ts keeps a narrow case fast.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { expectNumberedColumnsBack, writeNumberedCsv } from '../helpers/wide-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-wide-'));
const N = 130_000;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a very wide CSV', () => {
  it(`${N} numbered columns build into one ndarray field and read back`, async () => {
    const csv = join(dir, 'wide.csv');
    writeNumberedCsv(csv, N);
    const r = cli(['build', csv, '-o', join(dir, 'wide.beton')], { timeoutMs: 120_000 });
    expect(r.stderr).not.toMatch(/INTERNAL|call stack/);
    expect(r.status, r.stderr).toBe(0);
    await expectNumberedColumnsBack(join(dir, 'wide.beton'), N);
  }, 150_000);

  it(`${N} distinct column names: BAD_SCHEMA (the header holds 65535 fields), not a stack overflow`, () => {
    const csv = join(dir, 'distinct.csv');
    writeFileSync(csv, `${Array.from({ length: N }, (_, i) => `k${i.toString(36)}x`).join(',')}\n${'1,'.repeat(N - 1)}1\n`);
    const r = cli(['build', csv, '-o', join(dir, 'distinct.beton')], { timeoutMs: 120_000 });
    expect(r.stderr).not.toMatch(/INTERNAL|call stack/);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/BAD_SCHEMA.*65535 fields/);
  }, 150_000);
});

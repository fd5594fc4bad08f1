// A CSV of numbered columns builds into one ndarray field and reads back (issue 19 item 11),
// at a width that runs in a moment, in-process. The widths that once overflowed the stack
// (130 000 columns) and the header's 65535-field limit are wide-csv-scale.test.ts (slow tier).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { expectNumberedColumnsBack, writeNumberedCsv } from '../helpers/wide-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-wide-'));
const N = 300;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a wide CSV', () => {
  it(`${N} numbered columns build into one ndarray field and read back`, async () => {
    const csv = join(dir, 'wide.csv');
    writeNumberedCsv(csv, N);
    const r = await cliInProcess('build', csv, '-o', join(dir, 'wide.beton'));
    expect(r.err).not.toMatch(/INTERNAL|call stack/);
    expect(r.code, r.err).toBe(0);
    await expectNumberedColumnsBack(join(dir, 'wide.beton'), N);
  });
});

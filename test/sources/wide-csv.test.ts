// A CSV of numbered columns builds into one ndarray field and reads back (issue 19 item 11),
// at a width that runs in a moment, in-process. The widths that once overflowed the stack
// (130 000 columns) and the header's 65535-field limit are wide-csv-scale.test.ts (slow tier).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Reader } from '../../core/reader/reader.js';
import { cliInProcess } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-wide-'));
const N = 3_000;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a wide CSV', () => {
  it(`${N} numbered columns build into one ndarray field and read back`, async () => {
    const csv = join(dir, 'wide.csv');
    writeFileSync(
      csv,
      `${Array.from({ length: N }, (_, i) => `c${i}`).join(',')}\n${Array.from({ length: N }, (_, i) => i % 100).join(',')}\n`,
    );
    const r = await cliInProcess('build', csv, '-o', join(dir, 'wide.beton'));
    expect(r.err).not.toMatch(/INTERNAL|call stack/);
    expect(r.code, r.err).toBe(0);
    const reader = await Reader.open(join(dir, 'wide.beton'));
    try {
      expect(reader.fields.length).toBe(1);
      const v = reader.read(0)[reader.fields[0]!.name] as { shape: number[]; bytes: Uint8Array };
      expect(v.shape).toEqual([N]);
      const last = new DataView(v.bytes.buffer, v.bytes.byteOffset + v.bytes.byteLength - 8, 8);
      expect(Number(last.getBigInt64(0, true))).toBe((N - 1) % 100);
    } finally {
      reader.close();
    }
  });
});

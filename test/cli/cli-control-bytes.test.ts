// Issue 19 item 5: names from a user's data (field names in a .beton header, file names)
// never reach the terminal raw. `beton inspect`, `beton dump` and the error lines print
// control bytes (ESC, C1 CSI, DEL, bidi overrides) as visible escapes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { IntField } from '../../core/fields/int-field.js';
import { printable, printableJson, printableText } from '../../core/format/printable.js';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-ctl-'));
// FFCV names are ASCII: ESC, BEL, DEL (a crafted header could hold any byte; the helpers cover C1 and bidi too).
const HOSTILE = 'a\x1b]0;X\x07\x1b[2J\x7fb';
// Anything a terminal acts on: C0 but newline, DEL, C1, bidi overrides.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const file = join(dir, 'x.beton');

beforeAll(async () => {
  await new DatasetWriter(file, { [HOSTILE]: new IntField() }, { numWorkers: 0 }).write([{ [HOSTILE]: 1 }]);
  writeFileSync(join(dir, `evil\x1b[31m.csv`), 'a\n1\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('control bytes in names', () => {
  it('the helpers escape every control and keep the text readable', () => {
    expect(printable('a\x1b[2Jb\n')).toBe('a\\x1b[2Jb\\x0a');
    expect(printableText('line one\nx\x1by')).toBe('line one\nx\\x1by');
    expect(JSON.parse(printableJson(JSON.stringify({ k: 'a\x9bb\u202e' })))).toEqual({ k: 'a\x9bb\u202e' });
  });

  it('beton inspect (text and --json) prints the field name escaped', () => {
    for (const json of [false, true]) {
      const r = cli(['inspect', file, ...(json ? ['--json'] : [])]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW_CONTROL);
      if (!json) expect(r.stdout).toContain('a\\x1b]0;X\\x07\\x1b[2J\\x7fb');
      else expect((JSON.parse(r.stdout) as { fields: Array<{ name: string }> }).fields[0]!.name).toBe(HOSTILE);
    }
  });

  it('beton dump prints the same JSON value with no raw control', () => {
    const r = cli(['dump', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(r.stdout) as { fields: Array<{ name: string }> }).fields[0]!.name).toBe(HOSTILE);
  });

  it('an error naming a hostile file name prints it escaped', () => {
    const r = cli(['inspect', join(dir, `evil\x1b[31m.csv`)]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('evil\\x1b[31m.csv');
    expect(r.stderr).not.toMatch(RAW_CONTROL);
  });
});

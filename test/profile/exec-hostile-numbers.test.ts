/**
 * Issue 29, item 3: the numbers of an exec run's lines are untrusted. One `{"images": 1e308}`
 * line made `beton profile --exec` exit 1 with `[INVALID_INPUT] … received Infinity` and the
 * run stayed "running" for ever. Now non-finite, negative, non-number and absurd (> 10^15)
 * values are dropped and counted, and the run is kept and finished.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { droppedValues, jsonObjectOf, parseJsonLine, stepOf } from '../../core/profile/exec/exec-protocol.js';
import { cli } from '../helpers/cli.js';
import { STACK_LINE } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'exec-numbers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOSTILE = ['1e308', '-1e308', '"NaN"', '"Infinity"', '-1', '"12"', '1e16', 'null', '[1]', '{"a":1}', 'true'];

describe('exec lines with hostile numbers (issue 29)', () => {
  it('each hostile value is dropped and counted; good values on the same line still count', () => {
    for (const v of HOSTILE) {
      const r = jsonObjectOf(`{"images": ${v}, "images_per_sec": 50}`)!;
      expect(r, v).not.toBeNull();
      expect(droppedValues(r), v).toBe(1);
      expect(parseJsonLine(`{"images": ${v}, "images_per_sec": 50}`), v).toEqual({ kind: 'ips', ips: 50 });
      expect(stepOf(jsonObjectOf(`{"step": 1, "images": 8, "wait_ms": ${v}, "step_ms": 3}`)!), v).toBeNull();
    }
    expect(droppedValues(jsonObjectOf('{"step": 3, "images": 24, "wait_ms": 1, "step_ms": 2}')!)).toBe(0);
  });

  it('beton profile --exec with 1e308, NaN, -1 and strings: exit 0, the run finished and kept', () => {
    const script = join(dir, 'train.mjs');
    const lines = [
      '{"images": 0}',
      ...HOSTILE.map((v) => `{"images": ${v}}`),
      '{"images": 1e308}',
      '{"step": 1, "images": 1e308, "wait_ms": 1e308, "step_ms": 1e308}',
      '{"images_per_sec": 1e308}',
      '{"images": 64}',
    ];
    writeFileSync(
      script,
      `const l = ${JSON.stringify(lines)}; let i = 0; const t = setInterval(() => { console.log(l[i++]); if (i === l.length) clearInterval(t); }, 30);`,
    );
    const db = join(dir, 'runs.sqlite');
    const r = cli(['profile', '--exec', `"${process.execPath}" "${script}"`, '--db', db, '--no-gpu'], { timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/INVALID_INPUT|Infinity/);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\d+ reported value\(s\) dropped/);
    const list = cli(['runs', 'list', '--db', db, '--json'], { timeoutMs: 30_000 });
    const runs = JSON.parse(list.stdout) as Array<{ status: string }>;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('ok');
  }, 90_000);
});

// Issue 19 item 9: a named pipe given where a file is read (a table source, a .beton, a
// config, an image in a folder) is refused at once with NOT_A_FILE naming it, never a
// hang. Every command runs in a child killed after 20 s: a hang fails, it does not block.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAsync } from '../helpers/cli.js';
import { SAMPLE_IMAGES, STACK_LINE } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-fifo-'));
const p = (...parts: string[]): string => join(dir, ...parts);
const FIFOS = ['t.csv', 't.tsv', 't.jsonl', 't.npy', 't.npz', 't.parquet', 'd.beton', 'c.json'];

beforeAll(() => {
  for (const f of FIFOS) execFileSync('mkfifo', [p(f)]);
  mkdirSync(p('imgs', 'a'), { recursive: true });
  const circles = join(SAMPLE_IMAGES, 'circles');
  copyFileSync(join(circles, readdirSync(circles).sort()[0]!), p('imgs', 'a', 'one.jpg'));
  execFileSync('mkfifo', [p('imgs', 'a', 'two.jpg')]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases: Array<[string, string[], string]> = [
  ...['t.csv', 't.tsv', 't.jsonl', 't.npy', 't.npz', 't.parquet'].map((f): [string, string[], string] => [
    `build ${f}`,
    ['build', p(f), '-o', p('o.beton')],
    p(f),
  ]),
  ['inspect', ['inspect', p('d.beton')], 'd.beton'],
  ['dump', ['dump', p('d.beton')], 'd.beton'],
  ['merge', ['merge', p('d.beton'), p('d.beton'), '-o', p('m.beton')], 'd.beton'],
  ['bench-loader', ['bench-loader', p('d.beton')], 'd.beton'],
  ['build --config', ['build', '--config', p('c.json'), '-o', p('o.beton')], 'c.json'],
  ['export --loader', ['export', '--loader', p('c.json')], 'c.json'],
];

describe('named pipes as inputs', () => {
  for (const [name, args, named] of cases) {
    it(`beton ${name}: refused at once, naming the pipe`, async () => {
      const r = await cliAsync(args, { timeoutMs: 20_000 });
      expect(r.signal, `hung: ${r.stderr}`).toBeNull();
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(named);
      expect(r.stderr).toMatch(/named pipe \(FIFO\), not a regular file/);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).not.toMatch(/INTERNAL/);
    }, 30_000);
  }

  it('an image in a folder that is a FIFO is a bad sample (skipped with --on-error skip), not a hang', async () => {
    const r = await cliAsync(['build', p('imgs'), '-o', p('imgs.beton'), '--on-error', 'skip'], { timeoutMs: 20_000 });
    expect(r.signal, `hung: ${r.stderr}`).toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/1 skipped/);
  }, 30_000);
});

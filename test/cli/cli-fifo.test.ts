// Issue 19 item 9: a named pipe given where a file is read (a table source, a .beton, a
// config, an image in a folder) is refused at once with NOT_A_FILE naming it, never a
// hang. The commands run one after another in one child (test/helpers/cli-batch.ts) killed
// after 30 s: a hang fails them, it does not block (a Node start per command made this file
// take 12 s).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBatch } from '../helpers/cli-batch.js';
import type { CliResult } from '../helpers/cli.js';
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

const imageCase = ['build', p('imgs'), '-o', p('imgs.beton'), '--on-error', 'skip'];
let results: CliResult[] = [];
beforeAll(async () => {
  results = await cliBatch([...cases.map(([, args]) => args), imageCase], { timeoutMs: 30_000 });
});

describe('named pipes as inputs', () => {
  for (const [i, [name, , named]] of cases.entries()) {
    it(`beton ${name}: refused at once, naming the pipe`, () => {
      const r = results[i]!;
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(named);
      expect(r.stderr).toMatch(/named pipe \(FIFO\), not a regular file/);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).not.toMatch(/INTERNAL/);
    });
  }

  it('an image in a folder that is a FIFO is a bad sample (skipped with --on-error skip), not a hang', () => {
    const r = results[cases.length]!;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/1 skipped/);
  });
});

// Issue 12 item 6: results must not be lost to a bad runs database. `beton profile --db BAD`
// checks the database before the sweep (not after minutes of it), and every `beton runs`
// subcommand reports a damaged database alike (CORRUPT, exit 1), instead of some exiting 0.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsDbError } from '../../core/runs/errors.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { STACK_LINE, writeDamagedDb, writeImageBeton, writeNewerSchemaDb, writeRunsDb } from '../helpers/cli-inputs.js';
import { cli } from '../helpers/cli.js';
import { cliInProcess } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-runsbad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => join(dir, name);

beforeAll(async () => {
  await writeImageBeton(p('small.beton'), 40);
  writeRunsDb(p('good.sqlite'), 2);
  writeNewerSchemaDb(p('good.sqlite'), p('newer.sqlite'));
  writeFileSync(p('notdb.sqlite'), 'SQLite format 2? no: a text file\n'.repeat(200));
  // Cut short: the header promises pages the file no longer has.
  const { readFileSync } = await import('node:fs');
  writeFileSync(p('truncated.sqlite'), readFileSync(p('good.sqlite')).subarray(0, 5 * 4096 + 100));
  // Damaged pages of two kinds: an index `runs list` uses (show reads by id), and the points index `rm` did not touch.
  writeDamagedDb(p('good.sqlite'), p('damaged-runs-index.sqlite'), 'profile_runs_started');
  writeDamagedDb(p('good.sqlite'), p('damaged-points-index.sqlite'), 'sqlite_autoindex_points_1');
});

describe('beton profile --db BAD fails before the sweep, and says why', () => {
  // A sweep of 4 points × 5 s: a check after the sweep would take 20 s and more.
  const sweep = (db: string): string[] => [
    'profile',
    p('small.beton'),
    '--workers',
    '1,2',
    '--batch-sizes',
    '8,16',
    '--seconds',
    '5',
    '--db',
    db,
    '--no-gpu',
  ];

  it('truncated, in a process: exit 1 with [CORRUPT] on one line, no stack, and no point measured', () => {
    const db = p('truncated-copy.sqlite');
    copyFileSync(p('truncated.sqlite'), db);
    const r = cli(sweep(db));
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('error [CORRUPT]:');
    expect(r.stderr).not.toMatch(/\[1\/4\]/); // no point ran
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.ms).toBeLessThan(15_000);
  });

  // The other kinds of bad file in-process (a Node start each costs more than the check).
  for (const [name, code] of [
    ['truncated', 'CORRUPT'],
    ['newer', 'NEWER_SCHEMA'],
    ['notdb', 'CORRUPT'],
    ['damaged-runs-index', 'CORRUPT'],
  ] as const) {
    it(`${name}: exit 1 with [${code}] and no point measured`, async () => {
      const db = p(`${name}-inproc.sqlite`);
      copyFileSync(p(`${name}.sqlite`), db);
      const t0 = performance.now();
      const r = await cliInProcess(...sweep(db));
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain(`error [${code}]:`);
      expect(r.err).not.toMatch(/\[1\/4\]/); // no point ran
      expect(r.err).not.toMatch(STACK_LINE);
      expect(performance.now() - t0).toBeLessThan(15_000);
    });
  }

  it('a good database: the run is recorded', async () => {
    const db = p('fresh.sqlite');
    const r = await cliInProcess(
      'profile',
      p('small.beton'),
      '--workers',
      '1',
      '--batch-sizes',
      '8',
      '--seconds',
      '0.3',
      '--db',
      db,
      '--no-gpu',
    );
    expect(r.code, r.err).toBe(0);
    expect((await cliInProcess('runs', 'show', '1', '--db', db)).code).toBe(0);
  });
});

describe('beton runs reports a damaged database alike in every subcommand', () => {
  it('in a process: exit 1 with one [CORRUPT] line and the way on, no stack', () => {
    const db = p('truncated-spawned.sqlite');
    copyFileSync(p('truncated.sqlite'), db);
    const r = cli(['runs', 'list', '--db', db]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^beton runs: error \[CORRUPT\]: .* is damaged/m);
    expect(r.stderr).toMatch(/Move the file aside/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  // Every subcommand on every kind of damage, in-process (the same main() the process runs).
  for (const name of ['damaged-runs-index', 'damaged-points-index', 'truncated']) {
    it(`${name}: list, show, compare, rm, builds and plot all exit 1 with [CORRUPT]`, async () => {
      for (const args of [['list'], ['show', '1'], ['compare', '1', '2'], ['rm', '1'], ['builds'], ['plot', '1', '-o', '-']]) {
        const db = p(`${name}-${args[0]}.sqlite`);
        copyFileSync(p(`${name}.sqlite`), db);
        const r = await cliInProcess('runs', ...args, '--db', db);
        expect(r.code, `runs ${args.join(' ')}: ${r.err}`).toBe(1);
        expect(r.err, `runs ${args.join(' ')}`).toMatch(/^beton runs: error \[CORRUPT\]: .* is damaged/m);
        expect(r.err).toMatch(/Move the file aside/);
        expect(r.err).not.toMatch(STACK_LINE);
      }
    });
  }

  it('RunsDb.open(path, { check: true }) throws CORRUPT; without the check the damage shows only in some queries', () => {
    expect(() => RunsDb.open(p('damaged-runs-index.sqlite'), { check: true })).toThrow(RunsDbError);
    try {
      RunsDb.open(p('damaged-runs-index.sqlite'), { check: true });
    } catch (e) {
      expect((e as RunsDbError).code).toBe('CORRUPT');
    }
    const unchecked = RunsDb.open(p('damaged-runs-index.sqlite'));
    try {
      expect(unchecked.getRun(1)).not.toBeNull(); // read by id: this query does not touch the damaged index
    } finally {
      unchecked.close();
    }
  });
});

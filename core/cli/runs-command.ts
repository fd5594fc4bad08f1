import { printableJson, printableText, printableValues } from '../format/printable.js';
import { existsSync, writeFileSync } from 'node:fs';
import { asBetonError } from '../format/errors.js';
import type { RunsDb } from '../runs/runs-db.js';
import {
  compareRuns,
  defaultDbPath,
  deleteRun,
  getRun,
  listBuilds,
  listRuns,
  openRunsDb,
  plotRuns,
  RunsDbError,
  runsQueryError,
} from '../app/runs-queries.js';
import { readValue } from './flags/bad-value.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer, path } from './flags/parsers.js';
import { formatBuilds, formatCompare, formatList, formatRun } from './runs-format.js';
import { UsageError } from './usage-error.js';

export const RUNS_FLAGS = {
  db: valueFlag('PATH', path(), 'the runs database (default $BETON_DB, else the per-user file)'),
  json: switchFlag('machine-readable output'),
  limit: valueFlag('N', integer({ min: 1 }), 'list and builds: at most N, newest first'),
  output: valueFlag('FILE', path(), 'plot: the SVG file (- for stdout)', 'o'),
} satisfies FlagTable;

export const RUNS_HELP = `beton runs list [--limit N]            profile runs, newest first
beton runs show ID                     one run: machine, dataset, plan, points, verdict
beton runs compare A B                 images/s of A and B per matching grid point: B faster/slower than A
beton runs plot ID [B] -o chart.svg    SVG charts of a run (of A vs B with two ids); -o - for stdout
beton runs rm ID                       delete a run with its points and samples
beton runs builds [--limit N]          recorded builds, newest first
  common options: [--db PATH] [--json]

The runs database (SQLite, docs/runs-db.md) holds every profile run and build recorded by
beton profile and the app. Default: $BETON_DB, else the per-user data folder
(~/.local/share/beton-studio/runs.sqlite on Linux). --json prints machine-readable output.
A run that does not exist exits 1.

${flagHelp(RUNS_FLAGS)}`;

const SUBCOMMANDS = ['list', 'show', 'compare', 'plot', 'rm', 'builds'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
const ARITY: Record<Sub, readonly number[]> = { list: [0], builds: [0], show: [1], rm: [1], compare: [2], plot: [1, 2] };

/** A run ID (the positional arguments), read as a flag's value is. */
const parseId = (s: string): number => readValue('ID', integer({ min: 1 }), s);

export async function runsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, RUNS_FLAGS);
  const [sub, ...args] = positionals;
  if (!sub) throw new UsageError(`expected a subcommand: ${SUBCOMMANDS.join(', ')}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub))
    throw new UsageError(`unknown subcommand "${sub}"; expected ${SUBCOMMANDS.join(', ')}`);
  const cmd = sub as Sub;
  if (!ARITY[cmd].includes(args.length)) {
    const want = ARITY[cmd].map((n) => (n === 0 ? 'no' : String(n))).join(' or ');
    throw new UsageError(
      `runs ${cmd} takes ${want} run ID${ARITY[cmd].includes(1) && !ARITY[cmd].includes(2) ? '' : 's'}, got ${args.length}`,
    );
  }
  const ids = args.map(parseId);
  const limit = values.limit;
  if (values.limit !== undefined && cmd !== 'list' && cmd !== 'builds') throw new UsageError('--limit applies to list and builds');
  if (values.output !== undefined && cmd !== 'plot') throw new UsageError('-o/--output applies to plot');
  if (cmd === 'plot' && !values.output) throw new UsageError('runs plot needs -o FILE.svg (or -o - for stdout)');
  const path = values.db ?? defaultDbPath();
  const json = values.json ?? false;
  // A run keeps what commands printed (a failed command's stderr, its command line): escape
  // codes in them are shown, never replayed on the terminal (core/format/printable.ts).
  const out = (s: string): void => {
    const safe = json ? printableJson(s) : printableText(s);
    process.stdout.write(safe.endsWith('\n') ? safe : safe + '\n');
  };

  // Reading commands do not create a database that is not there.
  if (!existsSync(path)) {
    if (cmd === 'list' || cmd === 'builds') {
      out(json ? '[]' : `No ${cmd === 'list' ? 'runs' : 'builds'} yet (no database at ${path}).`);
      return 0;
    }
    process.stderr.write(
      `beton runs: run ${ids.join(' / ')} not found: there is no runs database at ${path} (pass --db PATH, or set BETON_DB)\n`,
    );
    return 1;
  }

  const fail = async (e: unknown): Promise<number> => {
    const { error, sqliteCode } = await runsQueryError(e, path);
    return dbError(error, path, sqliteCode);
  };
  let db: RunsDb;
  try {
    // Checked when opened, so every subcommand reports a damaged file alike (CORRUPT), not
    // only those whose queries happen to touch the damaged pages.
    db = await openRunsDb(path);
  } catch (e) {
    return fail(e);
  }
  try {
    switch (cmd) {
      case 'list': {
        const runs = listRuns(db, limit);
        out(json ? JSON.stringify(runs, null, 2) : runs.length ? formatList(runs) : `No runs in ${path}.`);
        return 0;
      }
      case 'builds': {
        const builds = listBuilds(db, limit);
        out(json ? JSON.stringify(builds, null, 2) : builds.length ? formatBuilds(builds) : `No builds in ${path}.`);
        return 0;
      }
      case 'show': {
        const run = getRun(db, ids[0]!);
        out(json ? JSON.stringify(run, null, 2) : formatRun(run));
        return 0;
      }
      case 'compare': {
        const c = compareRuns(db, ids[0]!, ids[1]!);
        // The text is coloured after its stored strings are made printable: our colours stay codes.
        if (json) out(JSON.stringify(c, null, 2));
        else {
          const text = formatCompare(printableValues(c));
          process.stdout.write(text.endsWith('\n') ? text : text + '\n');
        }
        return 0;
      }
      case 'rm': {
        const deleted = deleteRun(db, ids[0]!);
        if (!deleted) throw new RunsDbError('NOT_FOUND', `run ${ids[0]} not found in ${path}`);
        out(json ? JSON.stringify({ deleted: true, id: ids[0] }) : `Deleted run ${ids[0]}.`);
        return 0;
      }
      case 'plot': {
        const svg = plotRuns(db, ids.length === 2 ? [ids[0]!, ids[1]!] : [ids[0]!]);
        const file = values.output!;
        if (file === '-') {
          process.stdout.write(svg);
          return 0;
        }
        writeFileSync(file, svg);
        out(json ? JSON.stringify({ file, bytes: Buffer.byteLength(svg) }) : `Wrote ${file} (${Buffer.byteLength(svg)} bytes).`);
        return 0;
      }
    }
  } catch (e) {
    return await fail(e);
  } finally {
    db.close();
  }
}

function dbError(e: unknown, path: string, sqliteCode: string | null): number {
  if (e instanceof RunsDbError && e.code === 'NOT_FOUND') {
    process.stderr.write(`beton runs: ${e.message} (beton runs list shows the runs)\n`);
    return 1;
  }
  if (e instanceof RunsDbError) {
    process.stderr.write(`beton runs: error [${e.code}]: ${e.message}\n${e.hint ? `  ${e.hint}\n` : ''}`);
    return 1;
  }
  if (sqliteCode !== null) {
    const hint = asBetonError(e)?.hint;
    process.stderr.write(`beton runs: error [${sqliteCode}]: ${(e as Error).message} (${path})\n${hint ? `  ${hint}\n` : ''}`);
    return 1;
  }
  // Anything else (a plot file that cannot be written, a bug) goes to main's handler.
  throw e;
}

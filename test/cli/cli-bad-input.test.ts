// The CLI's answer to bad input, command by command: missing files, folders given as files,
// foreign and truncated files, bad flags and values, outputs that cannot be written, a port
// in use. Every row must end with its exit code (2 bad usage, 1 failure), a one-line
// `[CODE]` error where a code is named, and never a JS stack trace or an INTERNAL (bug) report.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SAMPLE_IMAGES,
  STACK_LINE,
  writeCorruptJpegBeton,
  writeDamagedDb,
  writeImageBeton,
  writeIntBeton,
  writeNewerSchemaDb,
  writeRunsDb,
} from '../helpers/cli-inputs.js';
import { canTestPermissions, cliAsync, type CliResult } from '../helpers/cli.js';
import { cliBatch } from '../helpers/cli-batch.js';
import { cliHere } from '../helpers/cli-in-process.js';
import { requires } from '../helpers/requires.js';

const HAVE_PERMISSIONS = requires(
  'a way to test permissions as root',
  'setpriv (util-linux) to run the CLI as root without capabilities',
  canTestPermissions(),
);

const dir = mkdtempSync(join(tmpdir(), 'beton-badcli-'));
const p = (...parts: string[]): string => join(dir, ...parts);
let server: Server;
let busyPort = 0;

beforeAll(async () => {
  await writeImageBeton(p('good.beton'), 40);
  await writeIntBeton(p('ints.beton'), 10);
  await writeCorruptJpegBeton(p('badjpeg.beton'), 8);
  const good = (await import('node:fs')).readFileSync(p('good.beton'));
  writeFileSync(p('truncated.beton'), good.subarray(0, 3000));
  writeFileSync(p('empty.beton'), '');
  writeFileSync(p('text.beton'), 'this is a text file, not a dataset\n'.repeat(10));
  writeFileSync(p('afile'), 'a file where a folder is expected\n');
  writeFileSync(p('same.csv'), 'a,b\n1,2\n3,4\n');
  writeFileSync(p('notjson.json'), '{ not json');
  writeFileSync(p('loader-bad.json'), JSON.stringify({ batchSize: -3 }));
  writeFileSync(p('data.xyz'), 'what format is this\n');
  writeFileSync(p('notdb.sqlite'), 'not a database, just text\n'.repeat(100));
  mkdirSync(p('emptydir'));
  mkdirSync(p('imgs', 'a'), { recursive: true });
  copyFileSync(join(SAMPLE_IMAGES, 'circles', 'circles_01.jpg'), p('imgs', 'a', 'x.jpg'));
  copyFileSync(join(SAMPLE_IMAGES, 'circles', 'circles_02.jpg'), p('imgs', 'a', 'y.jpg'));
  writeRunsDb(p('runs.sqlite'), 2);
  writeNewerSchemaDb(p('runs.sqlite'), p('newer.sqlite'));
  writeDamagedDb(p('runs.sqlite'), p('damaged.sqlite'), 'profile_runs_started');
  mkdirSync(p('readonly'));
  chmodSync(p('readonly'), 0o555);
  // Readable by user nobody, whom the permission rows run as under root.
  chmodSync(dir, 0o755);
  mkdirSync(p('nobody-home'));
  chmodSync(p('nobody-home'), 0o777);
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  busyPort = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  chmodSync(p('readonly'), 0o700);
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  /** What is wrong, for the test name. */
  what: string;
  args: () => string[];
  exit: 1 | 2;
  /** The `[CODE]` the error line must carry (failures only). */
  code?: string;
  /** Text the message must contain (what to do, the file it names...; a bad value: the one wording, core/cli/flags/bad-value.ts). */
  says?: RegExp;
  /** A permission row: as root, run as user nobody (cliAsync's asNobody). */
  asNobody?: boolean;
}

const G = (): string => p('good.beton');
const fresh = (name: string): string => p('out', `${name}-${Math.random().toString(16).slice(2)}.beton`);

const ROWS: Row[] = [
  // ---------- any command ----------
  { what: 'no command', args: () => [], exit: 2 },
  { what: 'unknown command', args: () => ['bulid'], exit: 2 },
  // ---------- build ----------
  { what: 'build: no SOURCE', args: () => ['build', '-o', fresh('b')], exit: 2 },
  { what: 'build: no -o', args: () => ['build', SAMPLE_IMAGES], exit: 2 },
  { what: 'build: unknown flag', args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--bogus'], exit: 2 },
  {
    what: 'build: --workers not a number',
    args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--workers', 'many'],
    exit: 2,
    says: /--workers expects a whole number of at least 0, got "many"/,
  },
  {
    what: 'build: --write-mode unknown',
    args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--write-mode', 'webp'],
    exit: 2,
    says: /--write-mode expects raw, jpg, smart or proportion, got "webp"/,
  },
  {
    what: 'build: --page-size not a power of two',
    args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--page-size', '3000000'],
    exit: 2,
  },
  {
    what: 'build: --range not a slice',
    args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--range', 'abc'],
    exit: 2,
    says: /--range expects a:b \(e\.g\. 0:1000\), got "abc"/,
  },
  {
    what: 'build: --shard k >= N',
    args: () => ['build', SAMPLE_IMAGES, '-o', fresh('b'), '--shard', '5/3'],
    exit: 2,
    says: /--shard expects k\/N with 0 <= k < N, got "5\/3"/,
  },
  { what: 'build: --config missing', args: () => ['build', '--config', p('nope.json')], exit: 2 },
  { what: 'build: --config not JSON', args: () => ['build', '--config', p('notjson.json')], exit: 2 },
  { what: 'build: SOURCE missing', args: () => ['build', p('nope'), '-o', fresh('b')], exit: 1 },
  { what: 'build: SOURCE of unknown format', args: () => ['build', p('data.xyz'), '-o', fresh('b')], exit: 1 },
  { what: 'build: empty image folder', args: () => ['build', p('emptydir'), '-o', fresh('b')], exit: 1 },
  {
    what: 'build: output folder is a file',
    args: () => ['build', SAMPLE_IMAGES, '-o', p('afile', 'x.beton'), '--workers', '1'],
    exit: 1,
    code: 'ENOTDIR',
  },
  // Root writes through permissions (CAP_DAC_OVERRIDE): as root this row runs the CLI as user
  // nobody (issue 33 item 4), so it means the same for everyone.
  {
    what: 'build: output in a read-only folder',
    args: () => ['build', p('imgs'), '-o', p('readonly', 'x.beton'), '--workers', '1'],
    exit: 1,
    code: 'EACCES',
    asNobody: true,
  },
  {
    what: 'build: output under /proc (not writable)',
    args: () => ['build', p('imgs'), '-o', '/proc/beton-test.beton', '--workers', '1'],
    exit: 1,
  },
  { what: 'build: output is a folder', args: () => ['build', p('imgs'), '-o', p('emptydir')], exit: 1 },
  { what: 'build: output is the source file', args: () => ['build', p('same.csv'), '-o', p('same.csv')], exit: 1, code: 'OUTPUT_IS_INPUT' },
  {
    what: 'build: output is an image of the source folder',
    args: () => ['build', p('imgs'), '-o', p('imgs', 'a', 'x.jpg')],
    exit: 1,
    code: 'OUTPUT_IS_INPUT',
  },
  {
    what: 'build: output exists, no --force',
    args: () => ['build', p('imgs'), '-o', G()],
    exit: 1,
    code: 'OUTPUT_EXISTS',
    says: /--force/,
  },
  // ---------- inspect / dump ----------
  { what: 'inspect: no FILE', args: () => ['inspect'], exit: 2 },
  { what: 'inspect: missing file', args: () => ['inspect', p('nope.beton')], exit: 1, code: 'ENOENT' },
  { what: 'inspect: a folder', args: () => ['inspect', p('emptydir')], exit: 1, code: 'EISDIR' },
  { what: 'inspect: path through a file', args: () => ['inspect', p('afile', 'x.beton')], exit: 1, code: 'ENOTDIR' },
  { what: 'inspect: truncated file', args: () => ['inspect', p('truncated.beton')], exit: 1, code: 'TRUNCATED' },
  { what: 'inspect: empty file', args: () => ['inspect', p('empty.beton')], exit: 1 },
  { what: 'inspect: a text file', args: () => ['inspect', p('text.beton')], exit: 1 },
  { what: 'inspect: a runs database', args: () => ['inspect', p('runs.sqlite')], exit: 1 },
  { what: 'dump: bad --range', args: () => ['dump', G(), '--range', 'x:y'], exit: 2, says: /--range expects a:b .*, got "x:y"/ },
  { what: 'dump: truncated file', args: () => ['dump', p('truncated.beton')], exit: 1, code: 'TRUNCATED' },
  { what: 'dump: a folder', args: () => ['dump', p('emptydir')], exit: 1, code: 'EISDIR' },
  // ---------- bench-loader ----------
  {
    what: 'bench-loader: decoder size 0',
    args: () => ['bench-loader', G(), '--decoder', 'rrc:0'],
    exit: 2,
    says: /--decoder expects simple, rrc:SIZE or center:SIZE .*, got "rrc:0"/,
  },
  { what: 'bench-loader: decoder unknown', args: () => ['bench-loader', G(), '--decoder', 'resize:10'], exit: 2 },
  {
    what: 'bench-loader: --workers 0',
    args: () => ['bench-loader', G(), '--workers', '0'],
    exit: 2,
    says: /--workers expects a whole number of at least 1, got "0"/,
  },
  {
    what: 'bench-loader: --order unknown',
    args: () => ['bench-loader', G(), '--order', 'shuffled'],
    exit: 2,
    says: /--order expects sequential, random or quasi_random, got "shuffled"/,
  },
  { what: 'bench-loader: missing file', args: () => ['bench-loader', p('nope.beton')], exit: 1, code: 'ENOENT' },
  { what: 'bench-loader: a foreign file', args: () => ['bench-loader', p('text.beton')], exit: 1 },
  {
    what: 'bench-loader: decoder too large for memory',
    args: () => ['bench-loader', G(), '--decoder', 'rrc:100000', '--workers', '1'],
    exit: 1,
    code: 'OUT_OF_MEMORY',
    // The options to lower (cli-errors checked this in a process of its own).
    says: /^beton bench-loader: error \[OUT_OF_MEMORY\]: [^]*Lower --batch-size or the decoder output size/m,
  },
  { what: 'bench-loader: no image field', args: () => ['bench-loader', p('ints.beton')], exit: 1, code: 'NO_IMAGE_FIELD' },
  {
    what: 'bench-loader: batch larger than the file',
    args: () => ['bench-loader', G(), '--batch-size', '1000', '--workers', '1'],
    exit: 1,
    code: 'TOO_FEW_SAMPLES',
    says: /--batch-size 40/,
  },
  {
    what: 'bench-loader: a JPEG that does not decode',
    args: () => ['bench-loader', p('badjpeg.beton'), '--batch-size', '4', '--workers', '1', '--epochs', '2'],
    exit: 1,
    code: 'CORRUPT_SAMPLE',
  },
  // ---------- profile ----------
  { what: 'profile: no FILE', args: () => ['profile'], exit: 2 },
  {
    what: 'profile: --batch-sizes 0',
    args: () => ['profile', G(), '--batch-sizes', '0'],
    exit: 2,
    says: /--batch-sizes expects a whole number of at least 1 \(comma-separated for several\), got "0"/,
  },
  {
    what: 'profile: --os-cache maybe',
    args: () => ['profile', G(), '--os-cache', 'maybe'],
    exit: 2,
    says: /--os-cache expects on or off \(comma-separated for several\), got "maybe"/,
  },
  { what: 'profile: --decoder size 0', args: () => ['profile', G(), '--decoder', 'center:0'], exit: 2 },
  {
    what: 'profile: --regex does not compile',
    args: () => ['profile', '--exec', 'true', '--regex', '(', '--db', p('fresh1.sqlite')],
    exit: 2,
  },
  { what: 'profile: --db not a database', args: () => ['profile', G(), '--db', p('notdb.sqlite'), '--no-gpu'], exit: 1, code: 'CORRUPT' },
  {
    what: 'profile: --db of a newer schema',
    args: () => ['profile', G(), '--db', p('newer.sqlite'), '--no-gpu'],
    exit: 1,
    code: 'NEWER_SCHEMA',
  },
  { what: 'profile: --db damaged', args: () => ['profile', G(), '--db', p('damaged.sqlite'), '--no-gpu'], exit: 1, code: 'CORRUPT' },
  { what: 'profile: --db under a file', args: () => ['profile', G(), '--db', p('afile', 'runs.sqlite'), '--no-gpu'], exit: 1 },
  {
    what: 'profile: batch larger than the file',
    args: () => ['profile', G(), '--batch-sizes', '1000', '--db', p('fresh2.sqlite'), '--no-gpu'],
    exit: 1,
    code: 'TOO_FEW_SAMPLES',
  },
  {
    what: 'profile: missing file',
    args: () => ['profile', p('nope.beton'), '--db', p('fresh3.sqlite'), '--no-gpu'],
    exit: 1,
    code: 'ENOENT',
  },
  // ---------- runs ----------
  { what: 'runs: no subcommand', args: () => ['runs'], exit: 2 },
  { what: 'runs: unknown subcommand', args: () => ['runs', 'delete', '1'], exit: 2 },
  {
    what: 'runs: id not a number',
    args: () => ['runs', 'show', 'one', '--db', p('runs.sqlite')],
    exit: 2,
    says: /ID expects a whole number of at least 1, got "one"/,
  },
  { what: 'runs: run not there', args: () => ['runs', 'show', '99', '--db', p('runs.sqlite')], exit: 1, says: /not found/ },
  { what: 'runs list: not a database', args: () => ['runs', 'list', '--db', p('notdb.sqlite')], exit: 1, code: 'CORRUPT' },
  { what: 'runs show: damaged database', args: () => ['runs', 'show', '1', '--db', p('damaged.sqlite')], exit: 1, code: 'CORRUPT' },
  { what: 'runs list: newer schema', args: () => ['runs', 'list', '--db', p('newer.sqlite')], exit: 1, code: 'NEWER_SCHEMA' },
  { what: 'runs list: --db is a folder', args: () => ['runs', 'list', '--db', p('emptydir')], exit: 1 },
  {
    what: 'runs plot: output under a file',
    args: () => ['runs', 'plot', '1', '--db', p('runs.sqlite'), '-o', p('afile', 'c.svg')],
    exit: 1,
    code: 'ENOTDIR',
  },
  // ---------- export ----------
  { what: 'export: nothing to export', args: () => ['export'], exit: 2 },
  { what: 'export: --build missing', args: () => ['export', '--build', p('nope.json')], exit: 2 },
  { what: 'export: --loader not JSON', args: () => ['export', '--loader', p('notjson.json')], exit: 2 },
  { what: 'export: --loader invalid', args: () => ['export', '--loader', p('loader-bad.json')], exit: 2 },
  {
    what: 'export: --format unknown',
    args: () => ['export', G(), '--format', 'yaml'],
    exit: 2,
    says: /--format expects python or json, got "yaml"/,
  },
  // ---------- merge ----------
  { what: 'merge: no inputs', args: () => ['merge', '-o', fresh('m')], exit: 2 },
  { what: 'merge: output exists', args: () => ['merge', G(), '-o', p('ints.beton')], exit: 1, code: 'OUTPUT_EXISTS' },
  { what: 'merge: a truncated input', args: () => ['merge', G(), p('truncated.beton'), '-o', fresh('m')], exit: 1, code: 'TRUNCATED' },
  { what: 'merge: different fields', args: () => ['merge', G(), p('ints.beton'), '-o', fresh('m')], exit: 1, code: 'BAD_SCHEMA' },
  { what: 'merge: missing input', args: () => ['merge', G(), p('nope.beton'), '-o', fresh('m')], exit: 1, code: 'ENOENT' },
  // ---------- serve ----------
  {
    what: 'serve: --port out of range',
    args: () => ['serve', dir, '--port', '99999'],
    exit: 2,
    says: /--port expects a whole number from 0 to 65535, got "99999"/,
  },
  { what: 'serve: folder missing', args: () => ['serve', p('nope')], exit: 2 },
  { what: 'serve: port in use', args: () => ['serve', dir, '--port', String(busyPort)], exit: 1, code: 'EADDRINUSE', says: /--port/ },
  {
    what: 'serve: --host not of this machine',
    args: () => ['serve', dir, '--port', '0', '--host', '203.0.113.7'],
    exit: 1,
    code: 'EADDRNOTAVAIL',
  },
];

/**
 * The rows run as a real `beton` process: the first usage row and the first failure row (the
 * whole path — bin/beton.js, its exit code 2 or 1, a process that ends by itself; each
 * command's own rows are main()'s, the same in either), every permission row (run as
 * another user), every out-of-memory row (an allocation that fails is not tried in the
 * test process). The other rows call the same main() in-process: what they check is the
 * message and the exit code, and a Node start per row made this file take a minute.
 */
const SPAWNED = new Set(ROWS.filter((r, i) => i === ROWS.findIndex((q) => q.exit === r.exit) || r.asNobody || r.code === 'OUT_OF_MEMORY'));

/**
 * The serve rows run one after another in one child process (cliBatch): a server that started
 * by mistake must not live in the test process, and there it keeps the child from ending, so
 * the batch fails at its time limit.
 */
const BATCHED = ROWS.filter((r) => r.args()[0] === 'serve');
const batched = new Map<Row, CliResult>();

describe('beton CLI: bad input ends in one line and the right exit code', () => {
  beforeAll(async () => {
    mkdirSync(p('out'), { recursive: true });
    // Async: the test process holds the busy port, and must keep serving it meanwhile.
    const results = await cliBatch(
      BATCHED.map((r) => r.args()),
      { timeoutMs: 60_000 },
    );
    BATCHED.forEach((r, i) => batched.set(r, results[i]!));
  });

  it(`the matrix has ${ROWS.length} rows over every command`, () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
    const commands = new Set(ROWS.map((r) => r.args()[0]).filter(Boolean));
    for (const c of ['build', 'inspect', 'dump', 'bench-loader', 'profile', 'runs', 'export', 'merge', 'serve'])
      expect(commands).toContain(c);
  });

  it.each(ROWS.map((r) => [r.what, r] as const))('%s', async (_what, row) => {
    // Async: the test process holds the busy port, and must keep serving it meanwhile.
    if (row.asNobody && !HAVE_PERMISSIONS) return;
    const r =
      batched.get(row) ??
      (SPAWNED.has(row)
        ? await cliAsync(row.args(), {
            timeoutMs: 60_000,
            ...(row.asNobody ? { asNobody: true, env: { HOME: p('nobody-home'), BETON_DB: p('nobody-home', 'runs.sqlite') } } : {}),
          })
        : await cliHere(row.args()));
    const detail = `beton ${row.args().join(' ')}\n--- stderr ---\n${r.stderr}`;
    expect(r.signal, detail).toBeNull();
    expect(r.status, detail).toBe(row.exit);
    expect(r.stderr, detail).not.toMatch(STACK_LINE);
    expect(r.stderr, detail).not.toContain('[INTERNAL]');
    expect(r.stderr.trim(), detail).not.toBe('');
    if (row.exit === 1) expect(r.stderr, detail).toMatch(/^beton [a-z-]+: /m);
    if (row.code) expect(r.stderr, detail).toContain(`error [${row.code}]:`);
    if (row.says) expect(r.stderr, detail).toMatch(row.says);
  });
});

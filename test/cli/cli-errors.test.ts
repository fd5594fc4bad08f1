// Issue 12 item 2: one error base with stable codes. Every error class of the library is a
// BetonError keeping its code; errors from Node, SQLite and V8 become one (asBetonError);
// the CLI prints `beton CMD: error [CODE]: message` and what to do, never a stack (unless
// BETON_DEBUG=1); the app service passes the code on, for calls and for failed jobs.
// What only a process shows runs as one (a failed allocation, a port held by another
// process, Ctrl-C, BETON_DEBUG); the other messages come from the CLI's main() in this process.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../core/api/contract.js';
import { UsageError } from '../../core/cli/usage-error.js';
import { asBetonError, BetonEncodeError, BetonError, BetonFormatError, InterruptedError } from '../../core/format/errors.js';
import { LoaderError } from '../../core/loader/errors.js';
import { OrderError } from '../../core/loader/orders/errors.js';
import { NativeError } from '../../core/native/native-error.js';
import { PipelineError } from '../../core/pipeline/stage.js';
import { ExecError } from '../../core/profile/exec/exec-protocol.js';
import { RunsDbError } from '../../core/runs/errors.js';
import { BetonService } from '../../core/services/beton-service.js';
import { ServiceError } from '../../core/services/service-error.js';
import { ValueProblem } from '../../core/sources/tables/value-coercion.js';
import { ffmpegAvailable, VideoReadError } from '../../core/sources/video/video-ffmpeg.js';
import { SAMPLE_IMAGES, STACK_LINE, writeImageBeton, writeNewerSchemaDb, writeRunsDb } from '../helpers/cli-inputs.js';
import { CLI, cli } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';
import { startGatedBuild } from '../helpers/gated-build.js';
import { requires } from '../helpers/requires.js';

const HAVE_FFMPEG = requires('ffmpeg and ffprobe', 'apt-get install -y ffmpeg (the Ctrl-C test builds videos)', ffmpegAvailable());

const dir = mkdtempSync(join(tmpdir(), 'beton-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one error base', () => {
  it('every error class of the library is a BetonError and keeps its code', () => {
    const errors: Array<[BetonError, string]> = [
      [new BetonFormatError('TRUNCATED', 'x'), 'TRUNCATED'],
      [new BetonEncodeError('BAD_VALUE', 'x'), 'BAD_VALUE'],
      [new LoaderError('CORRUPT_SAMPLE', 'x'), 'CORRUPT_SAMPLE'],
      [new OrderError('DUPLICATE_INDEX', 'x'), 'DUPLICATE_INDEX'],
      [new PipelineError('UNSUPPORTED_INPUT', 'x'), 'UNSUPPORTED_INPUT'],
      [new ExecError('BAD_REGEX', 'x'), 'BAD_REGEX'],
      [new RunsDbError('NEWER_SCHEMA', 'x'), 'NEWER_SCHEMA'],
      [new NativeError('NATIVE_JPEG', 'x'), 'NATIVE_JPEG'],
      [new ServiceError('EXEC_DISABLED', 'x'), 'EXEC_DISABLED'],
      [new UsageError('x'), 'USAGE'],
      [new ValueProblem('x'), 'BAD_VALUE'],
      [new VideoReadError('x'), 'BAD_VIDEO'],
      [new InterruptedError('SIGTERM', 'x'), 'INTERRUPTED'],
    ];
    for (const [e, code] of errors) {
      expect(e, e.name).toBeInstanceOf(BetonError);
      expect(e, e.name).toBeInstanceOf(Error);
      expect(e.code, e.name).toBe(code);
      expect(asBetonError(e)).toBe(e);
    }
  });

  it('Node system errors, SqliteErrors and failed allocations become BetonErrors with their code and a hint', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/x'"), {
      code: 'ENOSPC',
      syscall: 'write',
      errno: -28,
    });
    const a = asBetonError(enospc)!;
    expect(a.code).toBe('ENOSPC');
    expect(a.message).toBe("no space left on device, write '/x'");
    expect(a.hint).toMatch(/disk is full/);
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:5780'), {
      code: 'EADDRINUSE',
      syscall: 'listen',
      errno: -98,
    });
    expect(asBetonError(inUse)).toMatchObject({ code: 'EADDRINUSE', message: 'address already in use 127.0.0.1:5780 (listen)' });
    expect(asBetonError(inUse)!.hint).toMatch(/--port/);
    let sqlite: unknown;
    try {
      new Database(join(SAMPLE_IMAGES, 'circles', 'circles_01.jpg'), { readonly: true }).pragma('user_version');
    } catch (e) {
      sqlite = e;
    }
    expect(asBetonError(sqlite)).toMatchObject({ code: 'SQLITE_NOTADB' });
    let oom: unknown;
    try {
      new SharedArrayBuffer(2 ** 53 - 1);
    } catch (e) {
      oom = e;
    }
    expect(oom).toBeInstanceOf(RangeError);
    expect(asBetonError(oom)).toMatchObject({ code: 'OUT_OF_MEMORY' });
    // A bug stays a bug.
    expect(asBetonError(new TypeError('x is not a function'))).toBeNull();
  });
});

describe('the CLI prints [CODE] and what to do, no stack', () => {
  let good = '';
  beforeAll(async () => {
    good = join(dir, 'good.beton');
    await writeImageBeton(good, 40);
  });

  // A failed allocation naming the options to lower (bench-loader --decoder rrc:100000): the
  // OUT_OF_MEMORY row of cli-bad-input.test.ts, a process of its own there.

  it('a usage error exits 2 (--decoder rrc:0)', async () => {
    const r = await cliHere(['bench-loader', good, '--decoder', 'rrc:0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--decoder expects simple, rrc:SIZE or center:SIZE/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('an ExecError (a --regex that does not compile) is bad usage, exit 2, no stack', async () => {
    const r = await cliHere(['profile', '--exec', 'true', '--regex', '(', '--db', join(dir, 'e.sqlite')]);
    expect(r.status).toBe(2);
    // The one bad-value wording, with the regex engine's reason after it.
    expect(r.stderr).toMatch(
      /^beton profile: --regex expects a regular expression with a named group .*, got "\(": not a valid regular expression: /m,
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('ENOTDIR and EADDRINUSE name their code and say what to do', async () => {
    const nd = await cliHere(['inspect', join(good, 'x.beton')]);
    expect(nd.status).toBe(1);
    expect(nd.stderr).toMatch(/error \[ENOTDIR\]: not a directory/);
    expect(nd.stderr).toMatch(/a file, not a folder/);
    expect(nd.stderr).not.toMatch(STACK_LINE);
    // The port is held by another process (a second `beton serve` on it), as in real life.
    const first = spawn(process.execPath, [CLI, 'serve', dir, '--port', '0']);
    try {
      const port = await new Promise<number>((ok, fail) => {
        let out = '';
        first.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /127\.0\.0\.1:(\d+)\//.exec(out);
          if (m) ok(Number(m[1]));
        });
        first.on('exit', () => fail(new Error('serve exited')));
      });
      const r = cli(['serve', dir, '--port', String(port)], { timeoutMs: 20_000 });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^beton serve: error \[EADDRINUSE\]: address already in use/m);
      expect(r.stderr).toMatch(/--port/);
      expect(r.stderr).not.toMatch(STACK_LINE);
    } finally {
      first.kill('SIGTERM');
    }
  });

  it('a batch larger than the file: [CODE] and the flag to pass', async () => {
    const r = await cliHere(['profile', good, '--batch-sizes', '64', '--db', join(dir, 'p.sqlite'), '--no-gpu']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error \[TOO_FEW_SAMPLES\]: .* has 40 samples, fewer than one batch of 64/);
    expect(r.stderr).toMatch(/Pass --batch-sizes 40 or less/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  // The build cannot finish before the signal: its second video decode waits at a gate the
  // test opens only after sending SIGINT (test/helpers/gated-build.ts). A CLI that ignored
  // Ctrl-C would then complete with exit 0 and an output, and fail here.
  it.runIf(HAVE_FFMPEG)(
    'Ctrl-C ends a build with [INTERRUPTED], exit 130, no stack, no file',
    async () => {
      const folder = join(dir, 'int');
      mkdirSync(folder);
      const b = startGatedBuild(dir, join(folder, 'out.beton'), 'int');
      try {
        await b.blocked();
        expect(await b.writing(folder), 'the build is writing when the signal comes').toBe(true);
        b.child.kill('SIGINT');
        // Let the handler run first, then release the decode: an interrupted build stops, one
        // that ignored the signal goes on to the end.
        await new Promise((r) => setTimeout(r, 300));
        b.open();
        const { status, signal } = await b.closed;
        expect(status, `exit ${status ?? signal}\n${b.stderr()}`).toBe(130);
        expect(b.stderr()).toMatch(/error \[INTERRUPTED\]: the build was interrupted \(Ctrl-C\); no output was written/);
        expect(b.stderr()).not.toMatch(STACK_LINE);
        expect(readdirSync(folder)).toEqual([]);
      } finally {
        b.open();
        b.child.kill('SIGKILL');
      }
    },
    90_000,
  );

  it('BETON_DEBUG=1 adds the stack trace; an unexpected error prints as INTERNAL, a bug to report', async () => {
    const plain = await cliHere(['inspect', join(dir, 'nope.beton')]);
    expect(plain.stderr).not.toMatch(STACK_LINE);
    const debug = cli(['inspect', join(dir, 'nope.beton')], { env: { BETON_DEBUG: '1' } });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(/error \[ENOENT\]/);
    expect(debug.stderr).toMatch(STACK_LINE);
  });
});

describe('the app service passes codes on', () => {
  let service: BetonService;
  let events: ApiEvent[];
  const base = join(dir, 'svc');
  beforeAll(async () => {
    mkdirSync(base);
    writeRunsDb(join(base, 'good.sqlite'), 1);
    writeNewerSchemaDb(join(base, 'good.sqlite'), join(base, 'newer.sqlite'));
    await writeImageBeton(join(base, 'small.beton'), 40);
    mkdirSync(join(base, 'folder'));
  });

  it('a call failing with a library error answers its code, not FAILED', async () => {
    const newer = new BetonService({ roots: [base], host: 'server', dbPath: join(base, 'newer.sqlite') });
    try {
      const r = await newer.call('runs.list', {});
      expect(r).toMatchObject({ ok: false, error: { code: 'NEWER_SCHEMA' } });
    } finally {
      newer.close();
    }
    service = new BetonService({ roots: [base], host: 'server', dbPath: join(base, 'good.sqlite') });
    const folder = await service.call('datasets.inspect', { path: join(base, 'folder') });
    expect(folder).toMatchObject({ ok: false, error: { code: 'EISDIR' } });
    if (!folder.ok) expect(folder.error.message).toMatch(/give a file/);
    const missing = await service.call('runs.get', { id: 99 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('a failed job ends with jobs:finished carrying the code', async () => {
    events = [];
    service.on((e) => events.push(e));
    const r = await service.call('profiles.start', {
      plan: { file: join(base, 'small.beton'), batchSizes: [256], workers: [1], secondsPerPoint: 0.2 },
    });
    expect(r.ok).toBe(true);
    const jobId = r.ok ? (r.value as { jobId: string }).jobId : '';
    const t0 = Date.now();
    while (!events.some((e) => e.event === 'jobs:finished' && e.data.jobId === jobId) && Date.now() - t0 < 30_000)
      await new Promise((ok) => setTimeout(ok, 20));
    const fin = events.find((e) => e.event === 'jobs:finished' && e.data.jobId === jobId);
    expect(fin?.data).toMatchObject({ status: 'failed', code: 'TOO_FEW_SAMPLES' });
    service.close();
  });
});

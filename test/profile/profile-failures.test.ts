/**
 * Failures that must not look like success (issue 14, defect 4): a training command that
 * exits non-zero is a failed run everywhere — the job, the runs database, the CLI — with its
 * exit code and last lines of stderr; a sweep that fails is recorded as a failed run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, FinishedEvent } from '../../core/api/contract.js';
import { IntField } from '../../core/fields/int-field.js';
import { RunsDb, type RunSummary, type StoredRun } from '../../core/runs/runs-db.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'beton-failures-'));
const file = join(dir, 'small.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await new DatasetWriter(file, { label: new IntField() }, { numWorkers: 0 }).write(Array.from({ length: 20 }, (_, i) => ({ label: i })));
});

/** A service on `dir` that may run commands, and the jobs:finished of the job it starts. */
async function runJob(params: unknown, dbPath: string): Promise<{ finished: FinishedEvent; service: BetonService }> {
  const service = new BetonService({ roots: [dir], dbPath, host: 'server', allowExec: true });
  const events: ApiEvent[] = [];
  service.on((e) => events.push(e));
  const started = await service.call('profiles.start', params);
  expect(started.ok, JSON.stringify(started)).toBe(true);
  const end = Date.now() + 60_000;
  for (;;) {
    const f = events.find((e) => e.event === 'jobs:finished');
    if (f) return { finished: f.data as FinishedEvent, service };
    if (Date.now() > end) throw new Error('no jobs:finished');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a training command that fails is a failed run', () => {
  it('exit 127 (command not found): the job fails with the exit code and stderr; the database says failed, with why', async () => {
    const db = join(dir, 'service.sqlite');
    const { finished, service } = await runJob(
      { exec: { command: 'nosuchcmd-issue14 --epochs 1', throughputRegex: null, file: null } },
      db,
    );
    expect(finished.status).toBe('failed');
    expect(finished.code).toBe('EXEC_FAILED');
    expect(finished.message).toMatch(/^the command exited with code 127 \(command not found\): .*nosuchcmd-issue14.*not found/);
    const result = finished.result as { runId: number; exitCode: number; stderrTail: string[]; failure: string };
    expect(result).toMatchObject({ exitCode: 127, failure: 'the command exited with code 127 (command not found)' });
    expect(result.stderrTail.join('\n')).toMatch(/nosuchcmd-issue14.*not found/);
    const run = (await service.call('runs.get', { id: result.runId })) as { ok: true; value: StoredRun };
    expect(run.value.status).toBe('failed');
    expect(run.value.failure).toMatchObject({
      message: 'the command exited with code 127 (command not found)',
      exitCode: 127,
      signal: null,
    });
    expect(run.value.failure?.stderrTail?.join('\n')).toMatch(/not found/);
    const list = (await service.call('runs.list', {})) as { ok: true; value: RunSummary[] };
    expect(list.value[0]).toMatchObject({
      id: result.runId,
      status: 'failed',
      failure: 'the command exited with code 127 (command not found)',
    });
    service.close();
  });

  it('a command that succeeds stays ok, with no failure', async () => {
    const { finished, service } = await runJob(
      { exec: { command: 'echo \'{"images": 10}\'; echo \'{"images": 20}\'', throughputRegex: null, file: null } },
      join(dir, 'ok.sqlite'),
    );
    expect(finished.status).toBe('ok');
    expect(finished.result).toMatchObject({ exitCode: 0, failure: null });
    service.close();
  });

  it('a sweep that fails is recorded as a failed run with its error', async () => {
    const db = join(dir, 'sweep.sqlite');
    // 20 samples cannot fill one batch of 4096.
    const { finished, service } = await runJob(
      { plan: { file, workers: [1], batchSizes: [4096], decoder: 'simple', secondsPerPoint: 0.2, warmupBatches: 0 } },
      db,
    );
    expect(finished.status).toBe('failed');
    service.close();
    const runs = RunsDb.open(db);
    const [summary] = runs.listRuns();
    expect(summary).toMatchObject({ kind: 'sweep', status: 'failed' });
    expect(summary!.failure).toMatch(/fewer samples than one batch|4096/);
    expect(runs.getRun(summary!.id)!.failure!.message).toBe(summary!.failure);
    runs.close();
  });
});

describe('beton profile: failures in the CLI', () => {
  beforeAll(() => {
    // The CLI runs from dist/ (npm test builds it first); build it when it is missing or stale.
    const built = join(ROOT, 'dist/core/cli/profile-command.js');
    const sources = [
      'core/cli/profile-command.ts',
      'core/profile/exec/exec-mode.ts',
      'core/profile/sweep/failed-run.ts',
      'core/runs/runs-db.ts',
      'core/cli/runs-command.ts',
    ]
      .map((f) => join(ROOT, f))
      .filter((f) => existsSync(f))
      .map((f) => statSync(f).mtimeMs);
    if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources)) {
      const r = spawnSync('npm', ['run', 'build:ts'], { cwd: ROOT, encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    }
  }, 300_000);
  const beton = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/beton.js'), ...args], { encoding: 'utf8', cwd: dir });

  it('--exec of a command that exits 3: exit 1, "saved as FAILED" with the exit code and stderr; runs show says why', () => {
    const db = join(dir, 'cli.sqlite');
    const r = beton('profile', '--exec', 'echo "loss went NaN" >&2; exit 3', '--db', db, '--no-gpu');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/run (\d+) saved as FAILED: the command exited with code 3\nlast lines of stderr:\n {2}loss went NaN/);
    const id = /run (\d+) saved/.exec(r.stdout)![1]!;
    const show = beton('runs', 'show', id, '--db', db);
    expect(show.stdout).toContain(`Run #${id} · exec · failed`);
    expect(show.stdout).toContain('failure   the command exited with code 3');
    expect(show.stdout).toContain('stderr: loss went NaN');
  });

  it('a failed sweep is recorded as a failed run', () => {
    const db = join(dir, 'cli-sweep.sqlite');
    const r = beton(
      'profile',
      file,
      '--workers',
      '1',
      '--batch-sizes',
      '4096',
      '--decoder',
      'simple',
      '--seconds',
      '0.2',
      '--db',
      db,
      '--no-gpu',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the failed sweep is recorded as run 1/);
    const list = beton('runs', 'list', '--db', db, '--json');
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: 1, kind: 'sweep', status: 'failed' }]);
  });
});

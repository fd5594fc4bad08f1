/**
 * One application layer (core/app) behind both front ends: `beton profile --exec` and the
 * app's `profiles.start` record a command's run through the one record builder, and
 * `beton runs show/compare --json` answer what `runs.get` / `runs.compare` answer.
 * The CLI runs from dist/ (npm run build:ts).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, FinishedEvent, RunComparison, StoredRun } from '../../core/api/contract.js';
import { profileSweep } from '../../core/app/profile-run.js';
import { getRun, openRunsDb } from '../../core/app/runs-queries.js';
import { IntField } from '../../core/fields/int-field.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { cli } from '../helpers/cli.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'beton-app-layer-')));
const file = join(dir, 'small.beton');
const db = join(dir, 'runs.sqlite');
// Reports 30 images, says something on stderr, then fails: every field of the record is in play.
const command = `echo '{"images": 10}'; echo '{"images": 30}'; echo 'out of patience' >&2; exit 3`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await new DatasetWriter(file, { label: new IntField() }, { numWorkers: 0 }).write(Array.from({ length: 20 }, (_, i) => ({ label: i })));
});

async function serviceExec(service: BetonService): Promise<FinishedEvent> {
  const events: ApiEvent[] = [];
  const off = service.on((e) => events.push(e));
  const started = await service.call('profiles.start', { exec: { command, throughputRegex: null, file } });
  expect(started.ok, JSON.stringify(started)).toBe(true);
  const end = Date.now() + 60_000;
  for (;;) {
    const f = events.find((e) => e.event === 'jobs:finished');
    if (f) {
      off();
      return f.data as FinishedEvent;
    }
    if (Date.now() > end) throw new Error('no jobs:finished');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * What differs between two runs of the same command by nature: ids, clocks and telemetry
 * timing — and so the verdict's numbers (its kind and its measures' presence must agree).
 */
function recordOf(run: StoredRun) {
  const { id: _id, startedAt: _s, finishedAt: _f, samples: _samples, verdict, answer, ...rest } = run;
  const timed = (x: unknown): unknown => (typeof x === 'number' ? 'number' : x);
  const exec = verdict?.exec ? Object.fromEntries(Object.entries(verdict.exec).map(([k, v]) => [k, timed(v)])) : null;
  // The answer's numbers are timed too: its words and actions are what must match.
  const said = answer ? { engine: answer.engine, bottleneck: answer.bottleneck, actions: answer.actions.map((a) => a.id) } : null;
  return { ...rest, verdict: verdict ? { kind: verdict.kind, summary: verdict.summary, exec } : null, answer: said };
}

describe('core/app: the CLI and the service share one layer', () => {
  let cliId = 0;
  let appId = 0;
  const service = new BetonService({ roots: [dir], dbPath: db, host: 'server', allowExec: true });
  afterAll(() => service.close());

  it('beton profile --exec and profiles.start record the same exec run', async () => {
    const r = cli(['profile', '--exec', command, file, '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(1); // the command failed: so does the profile
    // The command's own output passes through first; the run is the last line.
    cliId = (JSON.parse(r.stdout.trim().split('\n').pop()!) as { id: number }).id;
    const finished = await serviceExec(service);
    expect(finished).toMatchObject({ kind: 'profile', status: 'failed', code: 'EXEC_FAILED' });
    expect(finished.kind === 'profile' && finished.result).toMatchObject({
      exitCode: 3,
      signal: null,
      imagesTotal: 30,
      failure: 'the command exited with code 3',
      stderrTail: ['out of patience'],
    });
    appId = finished.kind === 'profile' && finished.result ? finished.result.runId : 0;
    expect(appId).toBeGreaterThan(cliId);

    const runs = await openRunsDb(db);
    try {
      const [fromCli, fromApp] = [getRun(runs, cliId), getRun(runs, appId)];
      expect(recordOf(fromApp)).toEqual(recordOf(fromCli));
      expect(fromCli).toMatchObject({
        kind: 'exec',
        status: 'failed',
        plan: { command, throughputRegex: null, file },
        dataset: { path: file, numSamples: 20 },
        failure: { exitCode: 3, stderrTail: ['out of patience'] },
      });
    } finally {
      runs.close();
    }
  });

  it('runs.get and runs.compare answer what beton runs show/compare --json print', async () => {
    for (const id of [cliId, appId]) {
      const got = await service.call('runs.get', { id });
      expect(got.ok).toBe(true);
      const shown = cli(['runs', 'show', String(id), '--db', db, '--json']);
      expect(shown.status, shown.stderr).toBe(0);
      // Through JSON, as the wire carries it.
      expect(JSON.parse(shown.stdout) as StoredRun).toEqual(JSON.parse(JSON.stringify(got.ok && got.value)));
    }
    const compared = await service.call('runs.compare', { a: cliId, b: appId });
    const printed = cli(['runs', 'compare', String(cliId), String(appId), '--db', db, '--json']);
    expect(printed.status, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout) as RunComparison).toEqual(JSON.parse(JSON.stringify(compared.ok && compared.value)));
  });

  it('a run that is not there: the same NOT_FOUND, naming the database, from both', async () => {
    const got = await service.call('runs.get', { id: 999 });
    expect(got).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: `run 999 not found in ${db}` } });
    const shown = cli(['runs', 'show', '999', '--db', db]);
    expect(shown.status).toBe(1);
    expect(shown.stderr).toContain(`run 999 not found in ${db}`);
  });

  it('a failed sweep whose record cannot be saved still reports the sweep’s error, not the database’s', async () => {
    const broken = {
      saveRun(): number {
        throw new Error('database is locked');
      },
    };
    let recorded = false;
    // 20 samples cannot fill one batch of 4096.
    const sweep = profileSweep(
      { file, workers: [1], batchSizes: [4096], decoder: 'simple', secondsPerPoint: 0.2, warmupBatches: 0 },
      broken,
      { onFailedRecorded: () => (recorded = true) },
    );
    await expect(sweep).rejects.toThrow(/4096|fewer samples/);
    expect(recorded).toBe(false);
  });
});

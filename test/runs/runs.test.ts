import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PointResult, ProfileRun, TelemetrySample } from '../../core/api/profile-model.js';
import { defaultDbPath } from '../../core/runs/location.js';
import { MIGRATIONS } from '../../core/runs/migrations/index.js';
import { STALE_RUN_MS } from '../../core/runs/liveness.js';
import { plotCompare, plotRun } from '../../core/runs/plot.js';
import { SCHEMA_VERSION } from '../../core/runs/connection.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { countRows } from '../helpers/sqlite-count.js';
import { RunsDbError } from '../../core/runs/errors.js';
import { runsCommand } from '../../core/cli/runs-command.js';
import { UsageError } from '../../core/cli/usage-error.js';
import { CLI, cliIn, type CliResult } from '../helpers/cli.js';
import { cliInProcess, type InProcessResult } from '../helpers/cli-in-process.js';

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'beton-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `db${++n}`, 'runs.sqlite');

// ---------- a hand-made ProfileRun ----------

const SHA = 'ab'.repeat(32);
const CONTENT = 'cd'.repeat(32);

function point(index: number, workers: number, batchSize: number, osCache: boolean, ips: number): PointResult {
  return {
    index,
    config: { workers, batchSize, order: 'random', osCache },
    images: Math.round(ips * 4),
    seconds: 4,
    imagesPerSec: ips,
    batchesPerSec: ips / batchSize,
    waitP50Ms: 1.25 + index,
    waitP95Ms: 9.5 + index,
    workerBusyMsPerBatch: 33.3,
    cpuPerCore: [0.5, 0.75, 0.125, 1],
    rssPeakBytes: 512 * 1024 * 1024 + index,
    diskReadBytes: 1e6 * index,
    pageCacheResident: osCache ? 0.875 : null,
    gpuUtilMean: index % 2 ? 41.5 : null,
  };
}

function sample(i: number, withGpu: boolean): TelemetrySample {
  return {
    t: i * 250,
    point: i < 4 ? null : Math.floor(i / 8),
    imagesPerSec: i < 4 ? null : 1000 + 37 * (i % 11),
    cpuPerCore: [0.25, 0.5],
    rssBytes: 3e8 + i,
    diskReadBytes: 4096 * i,
    gpus: withGpu ? [{ index: 0, utilPercent: (i * 7) % 100, memoryUsedMiB: 1024, powerW: i % 3 ? 250.5 : null }] : [],
    // Migration 004; the first samples leave them out, as older runs do.
    ...(i < 4 ? {} : { processCpu: 0.125 + (i % 5) / 10, waitMsPerStep: 0.5 * (i % 7) }),
  };
}

function makeRun(opts: { host?: string; startedAt?: string; speed?: number; datasetPath?: string; gpu?: boolean } = {}): ProfileRun {
  const speed = opts.speed ?? 1;
  const points: PointResult[] = [];
  let i = 0;
  for (const osCache of [true, false])
    for (const batchSize of [64, 256])
      for (const workers of [1, 2, 4])
        points.push(point(i++, workers, batchSize, osCache, speed * (800 * workers + batchSize + (osCache ? 300 : 0))));
  return {
    kind: 'sweep',
    startedAt: opts.startedAt ?? '2025-03-01T10:00:00.000Z',
    finishedAt: '2025-03-01T10:01:30.500Z',
    status: 'ok',
    plan: {
      file: opts.datasetPath ?? '/data/train.beton',
      workers: [1, 2, 4],
      batchSizes: [64, 256],
      orders: ['random'],
      osCache: [true, false],
      decoder: 'rrc:160',
      flip: true,
      secondsPerPoint: 4,
      warmupBatches: 3,
    },
    machine: {
      hostname: opts.host ?? 'box-1',
      cpuModel: 'AMD EPYC 7763 64-Core Processor',
      cores: 16,
      ramBytes: 128 * 2 ** 30,
      os: 'Linux 6.8.0 x64',
      node: 'v20.19.0',
      gpus: [{ index: 0, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559 }],
    },
    dataset: {
      path: opts.datasetPath ?? '/data/train.beton',
      sizeBytes: 123_456_789,
      headerSha256: SHA,
      contentSha256: CONTENT,
      numSamples: 50_000,
      schema: [
        { name: 'image', type: 'rgb_image', typeId: 2 },
        { name: 'label', type: 'int', typeId: 1 },
      ],
    },
    points,
    samples: Array.from({ length: 40 }, (_, k) => sample(k, opts.gpu ?? true)),
    verdict: {
      kind: 'decode-bound',
      summary: 'Workers are busy decoding; the GPU waits.',
      evidence: ['workers 97% busy', 'wait p50 12 ms'],
      advice: ['lower the resolution', 'more workers'],
    },
  };
}

function expectCode(f: () => unknown, code: string): void {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RunsDbError);
    expect((e as RunsDbError).code, (e as Error).message).toBe(code);
    return;
  }
  throw new Error(`expected RunsDbError ${code}`);
}

// ---------- the database ----------

describe('RunsDb: opening and migrations', () => {
  it('migrates a fresh file (WAL, user_version), and reopening is a no-op that keeps the data', () => {
    const path = freshPath();
    const db = RunsDb.open(path);
    expect(existsSync(path)).toBe(true);
    expect(db.schemaVersion).toBe(MIGRATIONS.length);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(db.journalMode).toBe('wal');
    const id = db.saveRun(makeRun());
    db.close();
    for (let k = 0; k < 2; k++) {
      const again = RunsDb.open(path);
      expect(again.schemaVersion).toBe(MIGRATIONS.length);
      expect(again.getRun(id)?.points).toHaveLength(12);
      expect(again.integrityCheck()).toBe('ok');
      again.close();
    }
    const raw = new Database(path, { readonly: true });
    const tables = (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map(
      (t) => t.name,
    );
    expect(tables).toEqual(['builds', 'datasets', 'machines', 'points', 'profile_runs', 'samples']);
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    raw.close();
  });

  it('migration versions are 1..N in order, and a file from a newer version is refused', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const path = freshPath();
    RunsDb.open(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expectCode(() => RunsDb.open(path), 'NEWER_SCHEMA');
  });

  it('defaultDbPath: $BETON_DB, XDG, macOS, Windows', () => {
    expect(defaultDbPath({ BETON_DB: '/x/y.sqlite' }, 'linux', '/home/u')).toBe('/x/y.sqlite');
    expect(defaultDbPath({}, 'linux', '/home/u')).toBe('/home/u/.local/share/beton-studio/runs.sqlite');
    expect(defaultDbPath({ XDG_DATA_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/beton-studio/runs.sqlite');
    expect(defaultDbPath({ XDG_DATA_HOME: 'relative' }, 'linux', '/home/u')).toBe('/home/u/.local/share/beton-studio/runs.sqlite');
    expect(defaultDbPath({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/Beton Studio/runs.sqlite');
    expect(defaultDbPath({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\Beton Studio\\runs.sqlite',
    );
  });
});

describe('RunsDb: storing and reading runs', () => {
  it('saveRun → getRun round-trips a whole ProfileRun', () => {
    const db = RunsDb.open(freshPath());
    const run = makeRun();
    const id = db.saveRun(run);
    expect(id).toBe(1);
    expect(db.getRun(id)).toEqual({ ...run, id });
    expect(db.getRun(999)).toBeNull();
    // An exec run without dataset, points or verdict.
    const exec: ProfileRun = {
      ...makeRun({ gpu: false }),
      kind: 'exec',
      plan: { command: 'python train.py', throughputRegex: null, file: '/data/x.beton' },
      dataset: null,
      points: [],
      verdict: null,
      status: 'failed',
      finishedAt: null,
    };
    const eid = db.saveRun(exec);
    expect(db.getRun(eid)).toEqual({ ...exec, id: eid });
    db.close();
  });

  it('startRun / addPoint / addSamples / finishRun build the same run step by step', () => {
    const db = RunsDb.open(freshPath());
    const run = makeRun();
    const id = db.startRun(run);
    // Started in the past with no heartbeat: nothing records it any more.
    expect(db.getRun(id)).toMatchObject({ status: 'interrupted', finishedAt: null, verdict: null, points: [], samples: [] });
    db.heartbeat(id); // a live recorder stamps it: running, and no finish time shown
    expect(db.getRun(id)).toMatchObject({ status: 'running', finishedAt: null, verdict: null, points: [], samples: [] });
    expect(db.getSummary(id)).toMatchObject({ status: 'running', finishedAt: null });
    for (const p of run.points) db.addPoint(id, p);
    expect(db.addSamples(id, run.samples.slice(0, 25))).toBe(25);
    expect(db.addSamples(id, run.samples.slice(25))).toBe(15);
    db.finishRun(id, 'ok', run.verdict, run.finishedAt!);
    expect(db.getRun(id)).toEqual({ ...run, id });
    db.close();
  });

  it('a running run whose heartbeat stopped reads as interrupted, with its points; a signal-stopped run too', () => {
    const db = RunsDb.open(freshPath());
    const run = makeRun();
    const id = db.startRun({ ...run, startedAt: new Date().toISOString() });
    db.addPoint(id, run.points[0]!);
    db.heartbeat(id, new Date(Date.now() - STALE_RUN_MS - 1000).toISOString());
    expect(db.getSummary(id)).toMatchObject({ status: 'interrupted', points: 1 });
    expect(db.listRuns()[0]).toMatchObject({ id, status: 'interrupted' });
    db.heartbeat(id);
    expect(db.getSummary(id)?.status).toBe('running');
    db.finishRun(id, 'cancelled', null, undefined, { message: 'stopped by SIGTERM', code: 'INTERRUPTED', signal: 'SIGTERM' });
    expect(db.getRun(id)).toMatchObject({
      status: 'interrupted',
      failure: { code: 'INTERRUPTED', signal: 'SIGTERM' },
      points: [run.points[0]],
    });
    // A finished run is not touched by a late heartbeat.
    db.heartbeat(id, '2000-01-01T00:00:00Z');
    expect(db.getSummary(id)?.status).toBe('interrupted');
    db.close();
  });

  it("an exec run lists its img/s; against a sweep's best it is not compared (other settings), never ∞×", () => {
    const db = RunsDb.open(freshPath());
    const sweep = makeRun();
    const a = db.saveRun(sweep);
    const best = Math.max(...sweep.points.map((p) => p.imagesPerSec));
    const measures = {
      imagesPerSec: best / 2,
      steps: 40,
      stepsPerSec: 10,
      waitShare: 0.7,
      waitP50Ms: 30,
      waitP95Ms: 31,
      stepP50Ms: 40,
      series: [],
    };
    const b = db.saveRun({
      ...sweep,
      kind: 'exec',
      plan: { command: 'python3 train.py', throughputRegex: null, file: null },
      points: [],
      verdict: { kind: 'input-bound', summary: 's', evidence: [], advice: [], exec: measures },
    });
    expect(db.getSummary(b)).toMatchObject({ points: 0, bestImagesPerSec: best / 2, verdictKind: 'input-bound' });
    const c = db.compare(a, b);
    // A training command's rate is not a loader setting: "not compared", no direction, no colour.
    expect(c.best).toMatchObject({ direction: null, factor: null });
    expect(c.best.text).toMatch(/^not compared: B has no grid points/);
    expect(db.getRun(b)?.verdict?.exec).toEqual(measures);
    // An exec run that measured nothing is not "∞× slower": it measured nothing.
    const d = db.saveRun({
      ...sweep,
      kind: 'exec',
      plan: { command: 'true', throughputRegex: null, file: null },
      points: [],
      verdict: null,
    });
    expect(db.compare(a, d).best.direction).toBeNull();
    expect(db.compare(b, d).best.text).toBe('B measured nothing: no ratio');
    db.close();
  });

  it('deduplicates machines and datasets', () => {
    const path = freshPath();
    const db = RunsDb.open(path);
    db.saveRun(makeRun());
    db.saveRun(makeRun({ startedAt: '2025-03-02T10:00:00Z' }));
    db.saveRun(makeRun({ host: 'box-2' }));
    const d1 = db.recordDataset(makeRun().dataset!);
    expect(db.recordDataset({ ...makeRun().dataset!, headerSha256: 'cd'.repeat(32) })).not.toBe(d1);
    expect(db.recordMachine(makeRun().machine)).toBe(db.recordMachine(makeRun().machine));
    db.close();
    expect(countRows(path, 'machines')).toBe(2);
    expect(countRows(path, 'datasets')).toBe(2);
  });

  it('validates its inputs', () => {
    const db = RunsDb.open(freshPath());
    const run = makeRun();
    const id = db.saveRun(run);
    for (const bad of [0, -1, 1.5, Number.NaN, '1' as unknown as number]) expectCode(() => db.getRun(bad), 'INVALID_INPUT');
    expectCode(() => db.saveRun({ ...run, points: [{ ...run.points[0]!, imagesPerSec: Number.NaN }] }), 'INVALID_INPUT');
    expectCode(() => db.saveRun({ ...run, startedAt: 'yesterday' }), 'INVALID_INPUT');
    expectCode(() => db.saveRun({ ...run, plan: { command: 'x', throughputRegex: null, file: null } }), 'INVALID_INPUT');
    expectCode(() => db.saveRun({ ...run, dataset: { ...run.dataset!, headerSha256: 'nope' } }), 'INVALID_INPUT');
    expectCode(() => db.addPoint(id, run.points[0]!), 'INVALID_INPUT'); // index 0 is taken
    expectCode(() => db.addPoint(12345, run.points[0]!), 'NOT_FOUND');
    expectCode(() => db.addSamples(12345, run.samples), 'NOT_FOUND');
    expectCode(() => db.addSamples(id, [{ ...run.samples[0]!, rssBytes: -1 }]), 'INVALID_INPUT');
    expectCode(() => db.finishRun(12345, 'ok', null), 'NOT_FOUND');
    expectCode(() => db.listRuns({ limit: 0 }), 'INVALID_INPUT');
    // A failed saveRun leaves nothing behind (one transaction).
    expect(db.listRuns()).toHaveLength(1);
    db.close();
  });

  it('listRuns: newest first, limit, best images/s, verdict, dataset path', () => {
    const db = RunsDb.open(freshPath());
    const a = db.saveRun(makeRun({ startedAt: '2025-03-01T10:00:00Z' }));
    const b = db.saveRun(makeRun({ startedAt: '2025-03-03T10:00:00Z', speed: 2 }));
    const c = db.saveRun({
      ...makeRun({ startedAt: '2025-03-02T10:00:00Z' }),
      kind: 'exec',
      plan: { command: 'train', throughputRegex: null, file: '/data/e.beton' },
      dataset: null,
      points: [],
      verdict: null,
    });
    const list = db.listRuns();
    expect(list.map((r) => r.id)).toEqual([b, c, a]);
    expect(list[0]).toEqual({
      id: b,
      kind: 'sweep',
      startedAt: '2025-03-03T10:00:00Z',
      finishedAt: '2025-03-01T10:01:30.500Z',
      status: 'ok',
      datasetPath: '/data/train.beton',
      hostname: 'box-1',
      points: 12,
      bestImagesPerSec: 2 * (800 * 4 + 256 + 300),
      // What the rate counts (the Runs table's unit: images/s, clips/s for videos).
      datasetSchema: makeRun({}).dataset!.schema,
      verdictKind: 'decode-bound',
      failure: null,
    });
    expect(list[1]).toMatchObject({
      kind: 'exec',
      datasetPath: '/data/e.beton',
      points: 0,
      bestImagesPerSec: null,
      datasetSchema: null,
      verdictKind: null,
    });
    expect(db.listRuns({ limit: 2 }).map((r) => r.id)).toEqual([b, c]);
    db.close();
  });

  it('compare matches points by config; deleteRun cascades', () => {
    const path = freshPath();
    const db = RunsDb.open(path);
    const a = db.saveRun(makeRun());
    const fast = makeRun({ speed: 1.5 });
    fast.points = fast.points.filter((p) => p.config.batchSize === 256 || p.config.workers !== 1); // drop two configs
    fast.points.push(point(99, 8, 256, true, 9000)); // a config A lacks
    const b = db.saveRun(fast);
    const c = db.compare(a, b);
    expect(c.rows).toHaveLength(10);
    for (const r of c.rows) expect(r.ratio).toBeCloseTo(1.5, 10);
    expect(c.rows[0]).toMatchObject({
      config: { workers: 2, batchSize: 64, order: 'random', osCache: true },
      a: { index: 1 },
      b: { index: 1 },
    });
    expect(c.onlyInA).toEqual([
      { workers: 1, batchSize: 64, order: 'random', osCache: true },
      { workers: 1, batchSize: 64, order: 'random', osCache: false },
    ]);
    expect(c.onlyInB).toEqual([{ workers: 8, batchSize: 256, order: 'random', osCache: true }]);
    expect(c.verdicts.a?.kind).toBe('decode-bound');
    expect(c).toMatchObject({ sameMachine: true, sameDataset: true, a: { id: a }, b: { id: b } });
    expectCode(() => db.compare(a, 777), 'NOT_FOUND');

    expect(countRows(path, 'samples')).toBe(80);
    expect(db.deleteRun(a)).toBe(true);
    expect(db.deleteRun(a)).toBe(false);
    expect(db.getRun(a)).toBeNull();
    expect(db.listRuns().map((r) => r.id)).toEqual([b]);
    db.close();
    expect(countRows(path, 'samples')).toBe(40);
    expect(countRows(path, 'points')).toBe(11);
  });

  it('records and lists builds', () => {
    const db = RunsDb.open(freshPath());
    const ds = db.recordDataset(makeRun().dataset!);
    const report = {
      path: '/data/train.beton',
      numSamples: 50_000,
      skipped: [],
      pages: 10,
      pageSize: 1 << 24,
      fileSize: 123_456_789,
      elapsedMs: 5000,
      samplesPerSec: 10_000,
      heapBytes: { image: 1 },
      imageModes: {},
      sourceBytes: 0,
      source: { kind: 'image_folder', path: '/src', items: 50_000 },
      compressionRatio: null,
      passThrough: 0,
      reportPath: null,
    };
    const id = db.recordBuild(ds, { source: { type: 'image_folder', path: '/src' }, output: '/data/train.beton' }, report);
    db.recordBuild(null, { output: 'x' }, { ...report, path: '/data/other.beton' });
    const builds = db.listBuilds();
    expect(builds).toHaveLength(2);
    expect(builds.find((x) => x.id === id)).toMatchObject({
      datasetId: ds,
      datasetPath: '/data/train.beton',
      report,
      config: { output: '/data/train.beton' },
    });
    expectCode(() => db.recordBuild(4242, {}, report), 'NOT_FOUND');
    db.close();
  });
});

describe('RunsDb: comparisons say which run is faster, and whether the data was the same', () => {
  it('a run 3.26× slower is "B is 3.26× slower than A" (direction and factor), faster and about-the-same too', () => {
    const db = RunsDb.open(freshPath());
    const a = db.saveRun(makeRun());
    const b = db.saveRun(makeRun({ speed: 1 / 3.26 }));
    const c = db.compare(a, b);
    for (const r of c.rows) expect(r).toMatchObject({ direction: 'slower', text: 'B is 3.26× slower than A' });
    expect(c.rows[0]!.factor).toBeCloseTo(3.26, 10);
    expect(c.best).toMatchObject({ direction: 'slower', text: 'B is 3.26× slower than A' });
    expect(db.compare(b, a).best.text).toBe('B is 3.26× faster than A');
    const same = db.saveRun(makeRun({ speed: 1.02 }));
    expect(db.compare(a, same).best).toMatchObject({ direction: 'same', text: 'B is about as fast as A (1.02×, within the noise ±5%)' });
    expect(c.headline).toMatchObject({ direction: 'slower', faster: 0, same: 0, slower: c.rows.length });
    db.close();
  });

  it('datasets are told apart by content, not path: one path rebuilt is two datasets, one content at two paths is one', () => {
    const db = RunsDb.open(freshPath());
    const run = (path: string, content: string | undefined): number => {
      const r = makeRun({ datasetPath: path });
      r.dataset = { ...r.dataset!, ...(content ? { contentSha256: content } : {}) };
      if (!content) delete r.dataset.contentSha256;
      return db.saveRun(r);
    };
    const a = run('/data/x.beton', 'aa'.repeat(32));
    const sameContent = run('/data/x.beton', 'aa'.repeat(32));
    const rebuilt = run('/data/x.beton', 'bb'.repeat(32)); // same path and header (one datasets row), other content
    const copy = run('/elsewhere/x.beton', 'aa'.repeat(32));
    const old = run('/data/x.beton', undefined); // recorded before content hashes
    expect(db.compare(a, sameContent)).toMatchObject({ sameDataset: true, datasetNote: 'same dataset (content aaaaaaaaaaaa…)' });
    expect(db.compare(a, rebuilt)).toMatchObject({
      sameDataset: false,
      datasetNote: 'different datasets: /data/x.beton was rebuilt between the runs (its content differs)',
    });
    expect(db.compare(a, copy)).toMatchObject({
      sameDataset: true,
      datasetNote: 'same dataset (content aaaaaaaaaaaa…), at /data/x.beton and /elsewhere/x.beton',
    });
    expect(db.compare(a, old).sameDataset).toBeNull();
    expect(db.compare(a, old).datasetNote).toMatch(new RegExp(`^dataset unknown: run ${old} recorded no dataset content`));
    // Each run keeps the content it measured, though the rebuilt file shares the datasets row.
    expect(db.getRun(a)!.dataset!.contentSha256).toBe('aa'.repeat(32));
    expect(db.getRun(rebuilt)!.dataset!.contentSha256).toBe('bb'.repeat(32));
    db.close();
  });

  it('a rebuild with other settings keeps the header hash but changes the content hash; datasetInfo records both', async () => {
    const { datasetInfo } = await import('../../core/profile/sweep/dataset-info.js');
    const { DatasetWriter } = await import('../../core/writer/dataset-writer.js');
    const { RGBImageField } = await import('../../core/fields/rgb-image-field.js');
    const file = join(dir, 'rebuilt.beton');
    const px = (i: number): { data: Uint8Array; width: number; height: number } => ({
      data: new Uint8Array(32 * 24 * 3).map((_, k) => (k * 7 + i * 13) % 251),
      width: 32,
      height: 24,
    });
    const write = (quality: number): Promise<unknown> =>
      new DatasetWriter(file, { image: new RGBImageField({ writeMode: 'jpg', jpegQuality: quality }) }, { numWorkers: 0 }).write(
        Array.from({ length: 20 }, (_, i) => ({ image: px(i) })),
      );
    await write(90);
    const first = datasetInfo(file);
    expect(datasetInfo(file).contentSha256).toBe(first.contentSha256); // stable
    await write(50);
    const second = datasetInfo(file);
    expect(second.headerSha256).toBe(first.headerSha256); // the old identity could not tell them apart
    expect(second.contentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(second.contentSha256).not.toBe(first.contentSha256);
  });

  it('a failed run keeps why (migration 003): saveRun / finishRun store it, getRun and listRuns give it back', () => {
    const db = RunsDb.open(freshPath());
    const failed: ProfileRun = {
      ...makeRun(),
      status: 'failed',
      failure: {
        message: 'the command exited with code 127 (command not found)',
        exitCode: 127,
        signal: null,
        stderrTail: ['sh: 1: x: not found'],
      },
    };
    const id = db.saveRun(failed);
    expect(db.getRun(id)).toEqual({ ...failed, id });
    expect(db.listRuns()[0]).toMatchObject({ id, status: 'failed', failure: 'the command exited with code 127 (command not found)' });
    const live = db.startRun(makeRun());
    db.finishRun(live, 'failed', null, '2025-03-01T10:02:00Z', { message: 'CORRUPT_SAMPLE: sample 3', code: 'CORRUPT_SAMPLE' });
    expect(db.getRun(live)!.failure).toEqual({ message: 'CORRUPT_SAMPLE: sample 3', code: 'CORRUPT_SAMPLE' });
    expect(db.getRun(db.saveRun(makeRun()))).not.toHaveProperty('failure');
    db.close();
  });

  it('migration 002 adds the content column to a version-1 file; its runs compare as "dataset unknown"', () => {
    const path = freshPath();
    RunsDb.open(path).close();
    const raw = new Database(path);
    raw.exec(
      'DROP TABLE samples; DROP TABLE points; DROP TABLE profile_runs; DROP TABLE builds; DROP TABLE datasets; DROP TABLE machines;',
    );
    raw.exec(MIGRATIONS[0]!.sql);
    raw.pragma('user_version = 1');
    raw.close();
    const db = RunsDb.open(path);
    expect(db.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    const a = db.saveRun(makeRun());
    const b = db.saveRun(makeRun());
    expect(db.compare(a, b).sameDataset).toBe(true);
    db.close();
  });

  it('migration 006 rebuilds profile_runs without the SQL kind list, keeping runs, points and samples', () => {
    // A version-5 file with a run in it: the v5 schema, then a run copied in from a current file.
    const donor = freshPath();
    const db0 = RunsDb.open(donor);
    const id = db0.saveRun(makeRun());
    db0.close();
    const path = freshPath();
    RunsDb.open(path).close();
    const raw = new Database(path);
    raw.exec(
      'DROP TABLE samples; DROP TABLE points; DROP TABLE profile_runs; DROP TABLE builds; DROP TABLE datasets; DROP TABLE machines;',
    );
    for (const m of MIGRATIONS.slice(0, 5)) raw.exec(m.sql);
    raw.pragma('user_version = 5');
    raw.exec(`ATTACH DATABASE '${donor.replace(/'/g, "''")}' AS donor`);
    // The v5 columns only: later migrations add columns to the donor's tables.
    for (const t of ['machines', 'datasets', 'profile_runs', 'points', 'samples']) {
      const cols = (raw.prepare(`PRAGMA main.table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name).join(', ');
      raw.exec(`INSERT INTO main.${t} (${cols}) SELECT ${cols} FROM donor.${t}`);
    }
    raw.exec('DETACH DATABASE donor');
    expect(() => raw.prepare("UPDATE profile_runs SET kind = 'other'").run()).toThrow(/CHECK constraint failed/);
    raw.close();

    const db = RunsDb.open(path);
    expect(db.schemaVersion).toBe(SCHEMA_VERSION);
    expect(db.getRun(id)).toEqual({ ...makeRun(), id });
    db.close();
    const after = new Database(path);
    // The list is the code's now (RUN_KINDS); foreign keys still hold and still cascade.
    expect(after.prepare("SELECT sql FROM sqlite_master WHERE name = 'profile_runs'").pluck().get()).not.toMatch(/kind IN/);
    expect(after.pragma('foreign_key_check')).toEqual([]);
    after.pragma('foreign_keys = ON');
    after.prepare('DELETE FROM profile_runs WHERE id = ?').run(id);
    expect(after.prepare('SELECT COUNT(*) FROM points').pluck().get()).toBe(0);
    after.close();
  });

  it('a run of a kind RUN_KINDS does not list is refused by the code that stores it', () => {
    const db = RunsDb.open(freshPath());
    try {
      expect(() => db.saveRun({ ...makeRun(), kind: 'other' as ProfileRun['kind'] })).toThrow(RunsDbError);
    } finally {
      db.close();
    }
  });

  it('beton runs compare colours the change on a terminal: green faster, red slower', async () => {
    const path = freshPath();
    const db = RunsDb.open(path);
    const a = db.saveRun(makeRun());
    const b = db.saveRun(makeRun({ speed: 1 / 3.26 }));
    db.close();
    const r = spawnSync(process.execPath, [CLI, 'runs', 'compare', String(a), String(b), '--db', path], {
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '1' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('best point: \x1b[31mB is 3.26× slower than A\x1b[0m');
    expect(r.stdout).toContain('\x1b[31m3.26× slower\x1b[0m');
    // The other direction in-process: FORCE_COLOR is read when the text is made.
    vi.stubEnv('FORCE_COLOR', '1');
    try {
      const up = await cliInProcess('runs', 'compare', String(b), String(a), '--db', path);
      expect(up.code, up.err).toBe(0);
      expect(up.out).toContain('\x1b[32m3.26× faster\x1b[0m');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

// ---------- charts ----------

/** A small well-formedness check: balanced tags, one root, no bare '&' or '<' in text. */
function expectWellFormedSvg(svg: string): void {
  expect(svg.startsWith('<svg ')).toBe(true);
  expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  let roots = 0;
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < svg.length) {
    const lt = svg.indexOf('<', i);
    const textPart = svg.slice(i, lt === -1 ? svg.length : lt);
    expect(textPart).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(svg);
    if (!m) throw new Error(`malformed tag at ${lt}: ${svg.slice(lt, lt + 80)}`);
    const [, close, name, , selfClose] = m;
    if (close) expect(stack.pop()).toBe(name);
    else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
    i = tag.lastIndex;
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

describe('SVG charts', () => {
  it('plotRun: both charts with their axis labels, one line per combination, escaped text', () => {
    const run = { ...makeRun({ datasetPath: '/data/a<b>&c.beton' }), id: 7 };
    const svg = plotRun(run);
    expectWellFormedSvg(svg);
    for (const label of [
      'Throughput vs workers',
      'Workers',
      'Images/s',
      'Throughput over time',
      'Time (s)',
      'GPU util (%)',
      'batch 64 · random · os cache',
      'batch 256 · random · process cache',
      'Run #7',
    ])
      expect(svg).toContain(label);
    expect(svg).toContain('a&lt;b&gt;&amp;c.beton');
    expect(svg).toContain('fill="#ffffff"');
    expect(svg.match(/<path d="M/g)!.length).toBeGreaterThanOrEqual(4 + 2); // 4 series + images/s + GPU
    writeFileSync(join(dir, 'run.svg'), svg);
  });

  it('plotRun: a run without points or samples says so', () => {
    const svg = plotRun({ ...makeRun(), points: [], samples: [] });
    expectWellFormedSvg(svg);
    expect(svg).toContain('No sweep points');
    expect(svg).toContain('No telemetry samples');
  });

  it('plotRun: a long run is thinned to a bounded size', () => {
    const run = makeRun();
    run.samples = Array.from({ length: 50_000 }, (_, k) => sample(k, true));
    const svg = plotRun(run);
    expectWellFormedSvg(svg);
    expect(svg.length).toBeLessThan(200_000);
  });

  it('plotCompare: bars per common point with the ratio, and both timelines', () => {
    const svg = plotCompare({ ...makeRun(), id: 1 }, { ...makeRun({ speed: 1.25 }), id: 2 });
    expectWellFormedSvg(svg);
    for (const label of ['Compare run #1 and run #2', 'Images/s', 'Time (s)', 'A: run #1', 'B: run #2', '×1.25'])
      expect(svg).toContain(label);
    const none = plotCompare(makeRun(), { ...makeRun(), points: [] });
    expectWellFormedSvg(none);
    expect(none).toContain('no grid point in common');
  });
});

// ---------- the CLI ----------

describe('beton runs (CLI)', () => {
  beforeAll(() => {
    // The CLI runs from dist/ (npm test builds it first); build it when it is missing or stale.
    const built = join(ROOT, 'dist/core/cli/runs-command.js');
    const sources = ['core/cli/runs-command.ts', 'core/runs/runs-db.ts', 'core/runs/plot.ts', 'core/runs/validate.ts'].map(
      (f) => statSync(join(ROOT, f)).mtimeMs,
    );
    if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources)) {
      const r = spawnSync('npm', ['run', 'build:ts'], { cwd: ROOT, encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    }
  }, 300_000);

  const runs = cliIn(dir, { ...process.env, BETON_DB: join(dir, 'env-default.sqlite') });
  const cli = (...args: string[]): CliResult => runs('runs', ...args);
  /** `beton runs ARGS` in this process, with $BETON_DB as the spawned runs get it. */
  async function inProcess(...args: string[]): Promise<InProcessResult> {
    vi.stubEnv('BETON_DB', join(dir, 'env-default.sqlite'));
    try {
      return await cliInProcess('runs', ...args);
    } finally {
      vi.unstubAllEnvs();
    }
  }

  it('list / show / compare / plot / rm, with --json and human tables', async () => {
    const path = freshPath();
    const db = RunsDb.open(path);
    const a = db.saveRun(makeRun());
    const b = db.saveRun(makeRun({ speed: 2, startedAt: '2025-03-05T00:00:00Z' }));
    db.close();

    // In-process (core/cli/main.ts, as bin/beton.js runs it), but for the human compare:
    // its output goes to a real pipe, which must get no colours.
    const list = await inProcess('list', '--db', path, '--json');
    expect(list.code, list.err).toBe(0);
    expect((JSON.parse(list.out) as Array<{ id: number }>).map((r) => r.id)).toEqual([b, a]);
    const table = await inProcess('list', '--db', path);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/ID\s+STARTED\s+KIND\s+STATUS/);
    expect(table.out).toContain('decode-bound');

    const show = await inProcess('show', String(a), '--db', path, '--json');
    expect(show.code, show.err).toBe(0);
    expect(JSON.parse(show.out)).toEqual({ ...makeRun(), id: a });
    const human = await inProcess('show', String(a), '--db', path);
    expect(human.out).toContain(`Run #${a} · sweep · ok`);
    expect(human.out).toContain('WORKERS');
    expect(human.out).toContain('advice:   lower the resolution');

    const cmp = await inProcess('compare', String(a), String(b), '--db', path, '--json');
    expect(cmp.code, cmp.err).toBe(0);
    const c = JSON.parse(cmp.out) as { rows: Array<{ ratio: number }> };
    expect(c.rows).toHaveLength(12);
    expect(c.rows.every((r) => Math.abs(r.ratio - 2) < 1e-9)).toBe(true);
    const words = cli('compare', String(a), String(b), '--db', path);
    expect(words.status, words.stderr).toBe(0);
    expect(words.stdout).toContain('best point: B is 2.00× faster than A');
    expect(words.stdout).toMatch(/B AGAINST A\n.*2\.00× faster/);
    expect(words.stdout).not.toContain('\x1b['); // not a terminal: no colours

    const out = join(dir, 'cli-chart.svg');
    const plot = await inProcess('plot', String(a), '-o', out, '--db', path);
    expect(plot.code, plot.err).toBe(0);
    expectWellFormedSvg(readFileSync(out, 'utf8'));
    const pair = await inProcess('plot', String(a), String(b), '-o', '-', '--db', path);
    expect(pair.code, pair.err).toBe(0);
    expect(pair.out).toContain('Compare run #1 and run #2');

    const rm = await inProcess('rm', String(a), '--db', path);
    expect(rm.code, rm.err).toBe(0);
    expect(rm.out).toContain(`Deleted run ${a}`);
    const again = await inProcess('rm', String(a), '--db', path);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`run ${a} not found`);
  });

  it('a missing run exits 1; bad usage exits 2; no database lists nothing and creates nothing', async () => {
    const path = freshPath();
    RunsDb.open(path).close();
    // One process per exit code (what only a process shows); the variants in-process.
    const missing = cli('show', '5', '--db', path);
    expect(missing.status, missing.stderr).toBe(1);
    expect(missing.stderr).toMatch(/run.* 5 not found/);
    const unknown = cli('frobnicate', '--db', path);
    expect(unknown.status, unknown.stderr).toBe(2);
    for (const args of [
      ['compare', '1', '5'],
      ['plot', '5', '-o', join(dir, 'x.svg')],
    ]) {
      const r = await inProcess(...args, '--db', path);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.err).toMatch(/run.* 5 not found/);
    }
    const bogus = await inProcess('list', '--bogus', '--db', path);
    expect(bogus.code, bogus.err).toBe(2);
    // The rest in-process (each CLI start costs most of a second): UsageError or a parseArgs error → exit 2.
    for (const args of [
      [],
      ['show'],
      ['show', 'abc'],
      ['show', '0'],
      ['show', '1', '2'],
      ['compare', '1'],
      ['plot', '1'],
      ['plot', '1', '-o'],
      ['list', '--limit', 'x'],
      ['show', '1', '--limit', '3'],
      ['list', '-o', 'x.svg'],
      ['rm', '1', '--db='],
    ].map((a) => [`--db=${path}`, ...a])) {
      const err = await runsCommand(args).then(
        () => null,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err instanceof UsageError || /^ERR_PARSE_ARGS_/.test(err?.code ?? ''), `${args.join(' ')}: ${String(err)}`).toBe(true);
    }
    const nothing = join(dir, 'nope', 'runs.sqlite');
    const empty = await inProcess('list', '--db', nothing, '--json');
    expect(empty.code, empty.err).toBe(0);
    expect(JSON.parse(empty.out)).toEqual([]);
    expect((await inProcess('show', '1', '--db', nothing)).code).toBe(1);
    expect(existsSync(nothing)).toBe(false);
    // $BETON_DB is the default location.
    expect((await inProcess('list', '--json')).code).toBe(0);
    const notDb = join(dir, 'not-a-db.sqlite');
    writeFileSync(notDb, 'hello, I am not SQLite'.repeat(100));
    const bad = await inProcess('list', '--db', notDb);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('SQLITE_NOTADB');
  });
});

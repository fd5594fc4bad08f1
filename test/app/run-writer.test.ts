// Runs are recorded as they go (issue 18 item 5): started as 'running', points as measured,
// samples with a heartbeat, the end; a recorder that can only save whole runs gets one save.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunWriter, type RunRecorder } from '../../core/app/run-writer.js';
import type { PointResult, ProfileRun, TelemetrySample } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-run-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sample = (t: number): TelemetrySample => ({
  t,
  point: 0,
  imagesPerSec: 10,
  cpuPerCore: [0.5],
  rssBytes: 1,
  diskReadBytes: 0,
  gpus: [],
});
const point: PointResult = {
  index: 0,
  config: { workers: 1, batchSize: 8, order: 'random', osCache: true },
  images: 80,
  seconds: 1,
  imagesPerSec: 80,
  batchesPerSec: 10,
  waitP50Ms: 1,
  waitP95Ms: 2,
  workerBusyMsPerBatch: 5,
  cpuPerCore: [0.5],
  rssPeakBytes: 1,
  diskReadBytes: 0,
  pageCacheResident: null,
  gpuUtilMean: null,
};
const run: ProfileRun = {
  kind: 'sweep',
  startedAt: new Date().toISOString(),
  finishedAt: null,
  status: 'ok',
  plan: {
    file: '/x.beton',
    workers: [1],
    batchSizes: [8],
    orders: ['random'],
    osCache: [true],
    decoder: 'rrc:160',
    flip: true,
    secondsPerPoint: 1,
    warmupBatches: 1,
  },
  machine: { hostname: 'h', cpuModel: 'c', cores: 2, ramBytes: 1, os: 'Linux', node: 'v20', gpus: [] },
  dataset: null,
  points: [point],
  samples: [sample(250), sample(500)],
  verdict: null,
};

describe('RunWriter', () => {
  it('with a RunsDb: running with its point before the end (not interrupted: heartbeats), then finished with every sample', () => {
    const db = RunsDb.open(join(dir, 'a.sqlite'));
    const w = new RunWriter(db);
    w.start(run);
    const id = w.runId!;
    w.point(point);
    w.sample(run.samples[0]!);
    expect(db.getSummary(id)).toMatchObject({ status: 'running', points: 1 });
    w.sample(run.samples[1]!);
    expect(w.finish({ ...run, finishedAt: new Date().toISOString() })).toBe(id);
    const stored = db.getRun(id)!;
    expect(stored.status).toBe('ok');
    expect(stored.samples.map((s) => s.t)).toEqual([250, 500]);
    expect(stored.points).toEqual([point]);
    expect(db.listRuns()).toHaveLength(1);
    db.close();
  });

  it('with a recorder that saves only whole runs: one save at the end', () => {
    const saved: ProfileRun[] = [];
    const recorder: RunRecorder = { saveRun: (r) => (saved.push(r), 7) };
    const w = new RunWriter(recorder);
    w.start(run);
    w.point(point);
    w.sample(run.samples[0]!);
    expect(w.runId).toBeNull();
    expect(w.finish(run)).toBe(7);
    expect(saved).toEqual([run]);
  });
});

import { describe, expect, it } from 'vitest';
import type { PointConfig, PointResult } from '../../core/api/profile-model.js';
import type { RunSummary } from '../../core/api/runs-model.js';
import { changeOf, compareRuns, type ComparedRun } from '../../core/runs/compare.js';

// compareRuns is pure: runs as plain objects in, the comparison out, no database.

function point(index: number, config: PointConfig, imagesPerSec: number): PointResult {
  return {
    index,
    config,
    images: 1000,
    seconds: 1000 / imagesPerSec,
    imagesPerSec,
    batchesPerSec: imagesPerSec / 64,
    waitP50Ms: 1,
    waitP95Ms: 2,
    workerBusyMsPerBatch: 3,
    cpuPerCore: [0.5],
    rssPeakBytes: 1,
    diskReadBytes: 1,
    pageCacheResident: null,
    gpuUtilMean: null,
  };
}

function run(id: number, points: PointResult[], extra: Partial<ComparedRun> = {}): ComparedRun {
  const summary: RunSummary = {
    id,
    kind: 'sweep',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    status: 'ok',
    datasetPath: '/data/a.beton',
    hostname: 'h',
    points: points.length,
    bestImagesPerSec: Math.max(...points.map((p) => p.imagesPerSec)),
    verdictKind: null,
    failure: null,
  };
  return { summary, points, machineId: 1, datasetSha256: 'ab'.repeat(32), verdict: null, ...extra };
}

const c = (workers: number, engine?: 'beton' | 'ffcv'): PointConfig => ({
  workers,
  batchSize: 64,
  order: 'random',
  osCache: true,
  ...(engine ? { engine } : {}),
});

describe('compareRuns', () => {
  it('matches points by config (engine included), keeps the first of a repeated config, lists the rest per side', () => {
    const a = run(1, [point(0, c(1), 100), point(1, c(2), 200), point(2, c(2), 999), point(3, c(4, 'ffcv'), 50)]);
    const b = run(2, [point(0, c(2), 100), point(1, c(1), 326), point(2, c(8), 10)]);
    const r = compareRuns(a, b);
    expect(r.rows.map((x) => [x.config.workers, x.a.imagesPerSec, x.b.imagesPerSec, x.direction])).toEqual([
      [1, 100, 326, 'faster'],
      [2, 200, 100, 'slower'],
    ]);
    expect(r.rows[0]!.text).toBe('B is 3.26× faster than A');
    expect(r.onlyInA).toEqual([c(4, 'ffcv')]);
    expect(r.onlyInB).toEqual([c(8)]);
    expect(r.best.text).toBe('B is 3.06× slower than A');
    expect(r.sameMachine).toBe(true);
    expect(r.sameDataset).toBe(true);
  });

  it('says when a dataset is unknown or was rebuilt', () => {
    const pts = [point(0, c(1), 100)];
    expect(compareRuns(run(1, pts, { datasetSha256: null }), run(2, pts)).datasetNote).toMatch(/^dataset unknown: run 1 /);
    const rebuilt = compareRuns(run(1, pts), run(2, pts, { datasetSha256: 'cd'.repeat(32), machineId: 2 }));
    expect(rebuilt.sameDataset).toBe(false);
    expect(rebuilt.datasetNote).toContain('/data/a.beton was rebuilt');
    expect(rebuilt.sameMachine).toBe(false);
  });

  it('changeOf gives a direction only for positive rates, and "same" within the band', () => {
    expect(changeOf(0, 5).direction).toBeNull();
    expect(changeOf(100, 104).direction).toBe('same');
    expect(changeOf(100, 110).direction).toBe('faster');
  });
});

import { describe, expect, it } from 'vitest';
import type { PointConfig, PointResult } from '../../core/api/profile-model.js';
import type { RunSummary } from '../../core/api/runs-model.js';
import { changeOf, compareRuns, noiseOf, type ComparedRun } from '../../core/runs/compare.js';

// compareRuns is pure: runs as plain objects in, the comparison out, no database.

function point(index: number, config: PointConfig, imagesPerSec: number, slices?: number[]): PointResult {
  return {
    ...(slices ? { slices } : {}),
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

const c = (workers: number, engine?: 'beton' | 'ffcv', batchSize = 64): PointConfig => ({
  workers,
  batchSize,
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
    // The bests (A: 2 workers at 999, B: 1 worker at 326) are at different settings: not compared.
    expect(r.best.direction).toBeNull();
    expect(r.best.text).toMatch(/^not compared: the best points were measured with different settings/);
    expect(r.headline).toMatchObject({ direction: null, matched: 2, faster: 1, slower: 1, same: 0 });
    expect(r.headline.text).toBe('Of 2 matching points, B is faster at 1 (3.26×), slower at 1 (2.00×); noise ±5%');
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
    expect(changeOf(100, 104).text).toBe('B is about as fast as A (1.04×, within the noise ±5%)');
    expect(changeOf(100, 110).direction).toBe('faster');
    // A noisier pair widens the band: 10% faster inside ±15% is "about as fast".
    expect(changeOf(100, 110, 0.15)).toMatchObject({ direction: 'same', noise: 0.15 });
  });

  it("the walk's case: different batch sizes are never compared; the headline counts matching points, noise stated", () => {
    // A's best is at batch 256, B's at batch 512 (B's 512 point beats everything in A by 1.13×
    // the other way round): the old headline said "B is 1.13× slower than A" in red while 3 of
    // the 4 points both measured were faster in B.
    const a = run(1, [
      point(0, c(1, undefined, 256), 400, [395, 400, 405]),
      point(1, c(2, undefined, 256), 700, [690, 700, 710]),
      point(2, c(4, undefined, 256), 1130, [1100, 1130, 1150]),
      point(3, c(8, undefined, 256), 1000, [980, 1000, 1020]),
    ]);
    const b = run(2, [
      point(0, c(1, undefined, 256), 480, [470, 480, 490]),
      point(1, c(2, undefined, 256), 820, [800, 820, 830]),
      point(2, c(4, undefined, 256), 1000, [990, 1000, 1010]),
      point(3, c(8, undefined, 256), 1150, [1140, 1150, 1160]),
      point(4, c(4, undefined, 512), 1000, [990, 1000, 1010]),
    ]);
    const r = compareRuns(a, b);
    expect(r.best.direction).toBeNull();
    expect(r.best.text).toContain('batch 256');
    expect(r.best.text).toContain('A: beton · 4 workers · batch 256');
    expect(r.best.text).toContain('B: beton · 8 workers · batch 256');
    expect(r.headline).toMatchObject({ matched: 4, faster: 3, slower: 1, same: 0, direction: null });
    expect(r.headline.text).toMatch(/^Of 4 matching points, B is faster at 3 \(1\.15–1\.20×\), slower at 1 \(1\.13×\); noise ±\d+%$/);
    expect(r.onlyInB).toEqual([c(4, undefined, 512)]);
    // Bests with the same settings are compared, with the noise of the two points.
    const same = compareRuns(run(1, [point(0, c(4), 1000, [900, 1000, 1100])]), run(2, [point(0, c(4), 1100, [1080, 1100, 1120])]));
    expect(same.best).toMatchObject({ direction: 'same', noise: 0.2 });
    expect(same.best.text).toBe('B is about as fast as A (1.10×, within the noise ±20%)');
    expect(same.headline.text).toBe('B is about as fast as A at the 1 matching point; noise ±20%');
    expect(same.headline.direction).toBe('same');
  });

  it("the noise is the larger of the band and the points' own spread", () => {
    expect(noiseOf(undefined, { slices: [100, 100] })).toBe(0.05);
    expect(noiseOf({ slices: [90, 100, 110] }, { slices: [99, 100, 101] })).toBeCloseTo(0.2, 10);
  });
});

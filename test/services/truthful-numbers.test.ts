/**
 * Numbers that disagree (issue 14, defect 5), the host side: the version the app shows is the
 * package's, and the run charts count points from 1 and say "1 worker".
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EnvInfo } from '../../core/api/contract.js';
import type { PointResult, ProfileRun } from '../../core/api/profile-model.js';
import { plotRun } from '../../core/runs/plot.js';
import { BetonService } from '../../core/services/beton-service.js';

describe('the host tells its version', () => {
  it('beton serve (no version given) reports the package version, not 0.0.0', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const service = new BetonService({ roots: [__dirname], host: 'server' });
    const r = (await service.call('env.info', {})) as { ok: true; value: EnvInfo };
    expect(r.value.version).toBe(pkg.version);
    expect(r.value.version).not.toBe('0.0.0');
    service.close();
  });
});

describe('run charts', () => {
  it('point tooltips count from 1 and say "1 worker"', () => {
    const point = (index: number, workers: number): PointResult => ({
      index,
      config: { workers, batchSize: 8, order: 'random', osCache: true },
      images: 10,
      seconds: 1,
      imagesPerSec: 10,
      batchesPerSec: 1,
      waitP50Ms: 1,
      waitP95Ms: 1,
      workerBusyMsPerBatch: 1,
      cpuPerCore: [],
      rssPeakBytes: 1,
      diskReadBytes: 0,
      pageCacheResident: null,
      gpuUtilMean: null,
    });
    const run: ProfileRun & { id: number } = {
      id: 1,
      kind: 'sweep',
      startedAt: '2025-01-01T00:00:00Z',
      finishedAt: '2025-01-01T00:01:00Z',
      status: 'ok',
      plan: {
        file: '/d.beton',
        workers: [1, 2],
        batchSizes: [8],
        orders: ['random'],
        osCache: [true],
        decoder: 'simple',
        flip: false,
        secondsPerPoint: 1,
        warmupBatches: 0,
      },
      machine: { hostname: 'h', cpuModel: 'c', cores: 2, ramBytes: 1, os: 'o', node: 'n', gpus: [] },
      dataset: null,
      points: [point(0, 1), point(1, 2)],
      samples: [],
      verdict: null,
    };
    const svg = plotRun(run);
    expect(svg).toContain('#1: 1 worker,');
    expect(svg).toContain('#2: 2 workers,');
    expect(svg).not.toContain('#0:');
  });
});

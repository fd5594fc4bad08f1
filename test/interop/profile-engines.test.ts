// The profiler's Python engines against the real thing (issue 18): the ffcv engine's points
// must be what FFCV's Loader does on the same settings, timed directly here; the torch engine
// must measure a torchvision DataLoader over the source folder. Medians and a wide band
// (±25%): the machine may be shared, so the direct timing brackets the sweep (before and after).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { engineEnv } from '../../core/profile/python-engine.js';
import { cliAsync } from '../helpers/cli.js';
import { describeFfcv, PYTHON, runFfcv } from './ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-engines-'));
const src = join(dir, 'src');
const file = join(dir, 'd.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describeFfcv('profile engines against the real FFCV and torchvision', () => {
  beforeAll(async () => {
    // Small but not tiny: 300 JPEGs of about 200×240 in 3 classes (several epochs a second would time epoch ends).
    const py = `
import os, sys, numpy as np
from PIL import Image
rng = np.random.default_rng(0)
for c in range(3):
    d = os.path.join(sys.argv[1], f"c{c}"); os.makedirs(d)
    for i in range(100):
        h, w = 192 + (i % 5) * 16, 224 + (i % 7) * 16
        Image.fromarray(rng.integers(0, 255, (h // 8, w // 8, 3), dtype=np.uint8)).resize((w, h), Image.BILINEAR).save(os.path.join(d, f"{i}.jpg"), quality=90)
`;
    const r = spawnSync(PYTHON, ['-c', py, src], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const b = await cliAsync(['build', src, '-o', file, '--write-mode', 'jpg'], { timeoutMs: 120_000 });
    expect(b.status, b.stderr).toBe(0);
  }, 240_000);

  it("the ffcv engine's points are within ±25% of FFCV's Loader timed directly on the same settings", async () => {
    const job = { file, batch_size: 32, num_workers: 2, size: 160, seconds: 2, windows: 3 };
    // The same thread set-up as the engine's child (engineEnv): one thread per worker.
    const direct = (): number[] => {
      const keep = { ...process.env };
      Object.assign(process.env, engineEnv());
      try {
        return runFfcv<{ rates: number[] }>('time_ffcv_loader.py', job, 240_000).result.rates;
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in keep)) delete process.env[k];
        Object.assign(process.env, keep);
      }
    };
    const before = direct();
    const r = await cliAsync(
      [
        'profile',
        file,
        '--engine',
        'beton,ffcv',
        '--python',
        PYTHON,
        '--workers',
        '2',
        '--batch-sizes',
        '32',
        '--decoder',
        'rrc:160',
        '--seconds',
        '4',
        '--no-stages',
        '--no-gpu',
        '--json',
        '--db',
        join(dir, 'runs.db'),
      ],
      { timeoutMs: 400_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const after = direct();
    const run = JSON.parse(r.stdout) as ProfileRun;
    const ffcv = run.points.filter((p) => p.config.engine === 'ffcv');
    expect(ffcv).toHaveLength(1);
    expect(run.points.filter((p) => p.config.engine === 'beton')).toHaveLength(1);
    const rates = [...before, ...after];
    const point = ffcv[0]!.imagesPerSec;
    const ratio = point / median(rates);
    process.stderr.write(
      `ffcv engine ${point.toFixed(0)} img/s; FFCV direct ${rates.map((x) => x.toFixed(0)).join(', ')} (ratio ${ratio.toFixed(2)})\n`,
    );
    // Within ±25% of the direct median, or — on a machine whose load moved during the test —
    // within what the direct timing itself ranged over.
    const inBand = Math.abs(ratio - 1) <= 0.25;
    const inRange = point >= Math.min(...rates) * 0.75 && point <= Math.max(...rates) * 1.25;
    expect(inBand || inRange, `ffcv point ${point} vs direct ${rates.join(', ')}`).toBe(true);
    expect(ffcv[0]!.slices?.length).toBeGreaterThanOrEqual(2);
  }, 900_000);

  it('a torch-engine sweep over the source folder records points', async () => {
    const r = await cliAsync(
      [
        'profile',
        file,
        '--engine',
        'torch',
        '--source',
        src,
        '--python',
        PYTHON,
        '--workers',
        '1',
        '--batch-sizes',
        '16',
        '--seconds',
        '1',
        '--no-gpu',
        '--json',
        '--db',
        join(dir, 'runs.db'),
      ],
      { timeoutMs: 300_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as ProfileRun;
    expect(run.points).toHaveLength(1);
    expect(run.points[0]!.config.engine).toBe('torch');
    expect(run.points[0]!.imagesPerSec).toBeGreaterThan(0);
    expect(run.plan).toMatchObject({ engines: ['torch'], source: src });
  }, 400_000);
});

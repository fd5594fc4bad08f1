// The profiler's Python engines against the real thing (issue 18): the ffcv engine's points
// must be what FFCV's Loader does on the same settings, and the torch engine's what a
// torchvision DataLoader does on the source folder, each timed directly here (scripts written
// by hand in test/interop/py), before and after the engine's sweep. Issue 33 item 3: the band
// is ±25% of the direct median and never widens; a machine whose load moved is measured again,
// each try counted and logged (five at most), and a run that stays outside fails, saying how
// much the direct timings themselves spread.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { engineEnv } from '../../core/profile/engines/python-engine.js';
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
    let slices = 0;
    await withinBand(
      'ffcv',
      () => direct('time_ffcv_loader.py', job),
      async () => {
        const run = await profileRun(['--engine', 'beton,ffcv', '--workers', '2', '--batch-sizes', '32', '--seconds', '4', '--no-stages']);
        const ffcv = run.points.filter((p) => p.config.engine === 'ffcv');
        expect(ffcv).toHaveLength(1);
        expect(run.points.filter((p) => p.config.engine === 'beton')).toHaveLength(1);
        slices = ffcv[0]!.slices?.length ?? 0;
        return ffcv[0]!.imagesPerSec;
      },
    );
    expect(slices).toBeGreaterThanOrEqual(2);
  }, 1_500_000);

  it('the torch engine is within ±25% of a torchvision DataLoader timed directly on the source folder', async () => {
    // 3 s windows: a one-worker torchvision loader varies more per window than FFCV does.
    const job = { source: src, batch_size: 16, num_workers: 1, size: 160, seconds: 3, windows: 3 };
    await withinBand(
      'torch',
      () => direct('time_torch_loader.py', job),
      async () => {
        const run = await profileRun(['--engine', 'torch', '--source', src, '--workers', '1', '--batch-sizes', '16', '--seconds', '3']);
        expect(run.points).toHaveLength(1);
        expect(run.points[0]!.config.engine).toBe('torch');
        expect(run.plan).toMatchObject({ engines: ['torch'], source: src });
        return run.points[0]!.imagesPerSec;
      },
    );
  }, 900_000);
});

/** A direct timing, with the thread set-up of the engine's child (engineEnv: one thread per worker). */
function direct(script: string, job: Record<string, unknown>): number[] {
  const keep = { ...process.env };
  Object.assign(process.env, engineEnv());
  try {
    return runFfcv<{ rates: number[] }>(script, job, 300_000).result.rates;
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in keep)) delete process.env[k];
    Object.assign(process.env, keep);
  }
}

async function profileRun(args: string[]): Promise<ProfileRun> {
  const r = await cliAsync(
    ['profile', file, ...args, '--python', PYTHON, '--decoder', 'rrc:160', '--no-gpu', '--json', '--db', join(dir, 'runs.db')],
    { timeoutMs: 400_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ProfileRun;
}

const BAND = 0.25;
/** Direct timings spreading wider than this (max/min of the six windows) say the machine's load moved. */
const NOISE = 2;
// Five: in a whole-suite run another slow file shares the two cores, and its load comes and goes.
const TRIES = 5;

/**
 * The engine's rate within ±BAND of the median of direct timings taken just before and just
 * after it, on a machine quiet enough to tell (the direct timings within NOISE of each other).
 * A noisy or an outside try is repeated (counted, logged), TRIES at most; then the test fails
 * with every try and why: a noisy machine is a clear failure, never a wider band.
 */
async function withinBand(name: string, timeDirect: () => number[], engine: () => Promise<number>): Promise<void> {
  const tries: string[] = [];
  let ok = false;
  for (let k = 1; k <= TRIES && !ok; k++) {
    const before = timeDirect();
    const point = await engine();
    const after = timeDirect();
    const rates = [...before, ...after];
    const ratio = point / median(rates);
    const spread = Math.max(...rates) / Math.min(...rates);
    const quiet = spread <= NOISE;
    ok = quiet && Math.abs(ratio - 1) <= BAND;
    const verdict = ok ? 'within' : !quiet ? `the machine is too noisy to tell (spread above x${NOISE})` : `outside ±${BAND * 100}%`;
    tries.push(
      `try ${k}: ${name} engine ${point.toFixed(0)} img/s, direct ${rates.map((x) => x.toFixed(0)).join(', ')} ` +
        `(ratio ${ratio.toFixed(2)}, direct spread x${spread.toFixed(2)}): ${verdict}`,
    );
    process.stderr.write(`${tries.at(-1)}\n`);
  }
  expect(ok, `${name} engine not shown within ±${BAND * 100}% of the direct timing in ${tries.length} tries:\n${tries.join('\n')}`).toBe(
    true,
  );
}

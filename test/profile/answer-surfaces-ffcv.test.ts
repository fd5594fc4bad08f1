// One answer, every surface (issue 27): a beton+ffcv sweep's answer — its best point and
// number above all — is the same in `beton profile --json`, `beton runs show --json`, the
// service's run record (runs.get) and the CLI's text; FFCV's ablation stages are stored with
// its point. Real FFCV in /usr/bin/python3 (skipped with a warning where it is missing).
// Slow tier (test/tiers.ts): FFCV's start-up, numba compiles and ablation take ~40 s;
// answer-surfaces.test.ts checks the same surfaces on a beton-only sweep, fast.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { cliAsync } from '../helpers/cli.js';
import { expectServiceAnswer, expectTextQuotesAnswer } from '../helpers/answer-surfaces.js';
import { requires } from '../helpers/requires.js';

const PY = '/usr/bin/python3';
const HAVE_FFCV = spawnSync(PY, ['-c', 'import ffcv, ffcv.loader, torch'], { timeout: 120_000 }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'beton-answer-surfaces-'));
const db = join(dir, 'runs.sqlite');
const file = join(dir, 'd.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!requires('FFCV in /usr/bin/python3', 'pip install ffcv', HAVE_FFCV))('the answer is the same on every surface', () => {
  beforeAll(async () => {
    for (const c of ['a', 'b']) {
      mkdirSync(join(dir, 'src', c), { recursive: true });
      for (let i = 0; i < 16; i++) {
        const px = Buffer.alloc(200 * 200 * 3);
        for (let j = 0; j < px.length; j++) px[j] = (j * 2654435761 + i * 31) >>> 24;
        await sharp(px, { raw: { width: 200, height: 200, channels: 3 } })
          .jpeg({ quality: 90 })
          .toFile(join(dir, 'src', c, `${i}.jpg`));
      }
    }
    const b = await cliAsync(['build', join(dir, 'src'), '-o', file, '--write-mode', 'jpg'], { timeoutMs: 120_000 });
    expect(b.status, b.stderr).toBe(0);
  }, 180_000);

  it('profile --json, runs show --json, runs.get and the CLI text quote one best point and number', async () => {
    const args = ['profile', file, '--engine', 'beton,ffcv', '--python', PY, '--workers', '1', '--batch-sizes', '8', '--seconds', '1'];
    const r = await cliAsync([...args, '--db', db, '--json', '--no-gpu'], { timeoutMs: 240_000 });
    expect(r.status, r.stderr).toBe(0);
    // Every wait is said: FFCV's start-up and its ablation, and the counter counts from 1.
    expect(r.stderr).toMatch(/… starting FFCV in \/usr\/bin\/python3 — imports, then numba compiles/);
    expect(r.stderr).toMatch(/… timing FFCV's stages by ablation \(point 1 of 1\), 1 of 2: read\+decode/);
    expect(r.stderr).toMatch(/… measuring point 1 of 2: beton · 1 worker/);
    expect(r.stderr).toMatch(/… measuring point 2 of 2: ffcv · 1 worker/);
    const fromProfile = JSON.parse(r.stdout) as ProfileRun & { id: number };
    const a = fromProfile.answer!;
    expect(a.engine).toBe('ffcv');
    const best = fromProfile.points.find((p) => p.index === a.best.point)!;
    expect(best.config.engine).toBe('ffcv');
    expect(a.best.images_per_sec).toBe(best.imagesPerSec);
    expect(a.engines.beton!.best_images_per_sec).toBe(fromProfile.points.find((p) => p.config.engine === 'beton')!.imagesPerSec);
    // FFCV's stages, by ablation, stored with its point.
    expect(best.stages?.method).toBe('ablation');
    expect(best.stages!.stages.map((s) => s.stage)).toEqual(['read+decode', 'flip', 'to CHW']);

    const show = await cliAsync(['runs', 'show', String(fromProfile.id), '--db', db, '--json']);
    expect(show.status, show.stderr).toBe(0);
    const fromShow = JSON.parse(show.stdout) as ProfileRun;
    expect(fromShow.answer).toEqual(a);
    expect(fromShow.points.find((p) => p.index === a.best.point)!.stages).toEqual(best.stages);
    // Wait per step for every engine that has it: FFCV's samples carry it too.
    expect(fromShow.samples.some((s) => s.point === best.index && typeof s.waitMsPerStep === 'number')).toBe(true);

    await expectServiceAnswer({ root: dir, db, id: fromProfile.id, answer: a });

    // The text: the starred row is the answer's point, and the headline quotes its number.
    const text = await cliAsync(['runs', 'show', String(fromProfile.id), '--db', db]);
    expectTextQuotesAnswer(text.stdout, a, 'ffcv');
  }, 300_000);
});

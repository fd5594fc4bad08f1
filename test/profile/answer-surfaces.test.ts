// One answer, every surface (issue 27): a sweep's answer — its best point and number above
// all — is the same in `beton profile --json`, `beton runs show --json`, the service's run
// record (runs.get) and the CLI's text. A beton-only sweep of two points (the smallest with a
// best point to choose); answer-surfaces-ffcv.test.ts (slow tier) runs it with real FFCV and
// its ablation stages. The two commands' own processes are spawned once each (profile, the
// text); runs show --json and runs.get are read in-process, through the same main() and service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { writeImageBeton } from '../helpers/cli-inputs.js';
import { cliAsync } from '../helpers/cli.js';
import { expectServiceAnswer, expectTextQuotesAnswer } from '../helpers/answer-surfaces.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-answer-surfaces-'));
const db = join(dir, 'runs.sqlite');
const file = join(dir, 'd.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the answer is the same on every surface', () => {
  beforeAll(async () => {
    await writeImageBeton(file, 64, { width: 32, height: 32, writeMode: 'jpg' });
  });

  it('profile --json, runs show --json, runs.get and the CLI text quote one best point and number', async () => {
    const args = ['profile', file, '--engine', 'beton', '--workers', '1', '--batch-sizes', '8,16', '--seconds', '0.3'];
    const r = await cliAsync([...args, '--db', db, '--json', '--no-gpu'], { timeoutMs: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    // Every wait is said, and the counter counts from 1.
    expect(r.stderr).toMatch(/… measuring point 1 of 2: beton · 1 worker/);
    expect(r.stderr).toMatch(/… measuring point 2 of 2: beton · 1 worker/);
    const fromProfile = JSON.parse(r.stdout) as ProfileRun & { id: number };
    expect(fromProfile.points).toHaveLength(2);
    const a = fromProfile.answer!;
    expect(a.engine).toBe('beton');
    const best = fromProfile.points.find((p) => p.index === a.best.point)!;
    expect(best.config.engine).toBe('beton');
    expect(a.best.images_per_sec).toBe(best.imagesPerSec);
    expect(a.engines.beton!.best_images_per_sec).toBe(Math.max(...fromProfile.points.map((p) => p.imagesPerSec)));

    const show = await cliInProcess('runs', 'show', String(fromProfile.id), '--db', db, '--json');
    expect(show.code, show.err).toBe(0);
    const fromShow = JSON.parse(show.out) as ProfileRun;
    expect(fromShow.answer).toEqual(a);
    expect(fromShow.points.find((p) => p.index === a.best.point)).toEqual(best);
    // Wait per step is stored with the samples of the best point.
    expect(fromShow.samples.some((s) => s.point === best.index && typeof s.waitMsPerStep === 'number')).toBe(true);

    await expectServiceAnswer({ root: dir, db, id: fromProfile.id, answer: a });

    // The text: the starred row is the answer's point, and the headline quotes its number.
    const text = await cliAsync(['runs', 'show', String(fromProfile.id), '--db', db]);
    expect(text.status, text.stderr).toBe(0);
    expectTextQuotesAnswer(text.stdout, a, 'beton');
  }, 180_000);
});

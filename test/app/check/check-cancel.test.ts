/**
 * checkDataset's progress and its signal (what the app's check job and `beton check` share):
 * progress carries the rate and the time left; an abort stops the check mid-way, in this
 * thread or in workers, rejects with the signal's reason and keeps no result file.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../../core/api/build-config.js';
import { buildDataset } from '../../../core/app/build.js';
import { checkDataset, checkSidecarPath, type CheckProgress } from '../../../core/app/check-dataset.js';

const dir = mkdtempSync(join(tmpdir(), 'check-cancel-'));
const file = join(dir, 't.beton');
const ROWS = 3000;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const lines = ['id,score'];
  for (let i = 0; i < ROWS; i++) lines.push(`${i},${i / ROWS}`);
  writeFileSync(join(dir, 't.csv'), lines.join('\n') + '\n');
  const cfg = parseBuildConfig({ source: { type: 'table', path: join(dir, 't.csv') }, output: file } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
}, 60_000);

describe('checkDataset: progress and cancel', () => {
  it('progress: done of total, the average rate, the time left and the elapsed time', async () => {
    const seen: CheckProgress[] = [];
    const check = await checkDataset(file, { numWorkers: 1, save: false, onProgress: (p) => seen.push(p) });
    expect(check.beton.numSamples).toBe(ROWS);
    expect(seen.length).toBeGreaterThan(1);
    for (const p of seen) {
      expect(p.total).toBe(ROWS);
      expect(p.elapsedMs).toBeGreaterThan(0);
      if (p.samplesPerSec > 0) expect(p.etaMs).toBeCloseTo(((ROWS - p.done) / p.samplesPerSec) * 1000, 3);
    }
    expect(seen.at(-1)!.done).toBe(ROWS);
    // Elapsed time only grows, and the last report says how long the whole check took.
    const elapsed = seen.map((p) => p.elapsedMs);
    expect([...elapsed].sort((a, b) => a - b)).toEqual(elapsed);
    expect(existsSync(checkSidecarPath(file))).toBe(false);
  });

  for (const numWorkers of [0, 2]) {
    it(`an abort at the first progress stops it (${numWorkers ? `${numWorkers} workers` : 'this thread'}): the signal's reason, no result kept`, async () => {
      const ac = new AbortController();
      const reason = new Error('stop');
      let last = 0;
      const run = checkDataset(file, {
        numWorkers,
        signal: ac.signal,
        onProgress: (p) => {
          last = p.done;
          ac.abort(reason);
        },
      });
      await expect(run).rejects.toBe(reason);
      expect(last).toBeLessThan(ROWS);
      expect(existsSync(checkSidecarPath(file))).toBe(false);
    });
  }

  it('an already aborted signal: nothing is read', async () => {
    const ac = new AbortController();
    ac.abort(new Error('before'));
    await expect(checkDataset(file, { signal: ac.signal })).rejects.toThrow('before');
    expect(existsSync(checkSidecarPath(file))).toBe(false);
  });
});

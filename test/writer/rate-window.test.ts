import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { DatasetWriter, type WriteProgress } from '../../core/writer/dataset-writer.js';
import { RateWindow, windowRate } from '../../core/writer/rate-window.js';
import type { Sample } from '../../core/writer/sample.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-rate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the build rate window', () => {
  it('is the samples over the last second, from the oldest report still needed to span it', () => {
    expect(windowRate([], 100, 5).rate).toBeNull();
    const recent = [
      { t: 0, done: 0 },
      { t: 500, done: 50 },
      { t: 1000, done: 100 },
    ];
    const w = windowRate(recent, 1600, 200);
    expect(w.rate).toBeCloseTo(((200 - 50) * 1000) / 1100, 6);
    expect(w.recent.map((r) => r.t)).toEqual([500, 1000, 1600]);
  });

  it('start-up is not a rate: 1.2 s of start-up, then 240 samples/s reads 240, where the average since the start reads 13, 52, 81 …', () => {
    const rw = new RateWindow();
    expect(rw.add(1200, 16)).toBeNull(); // the first report is the baseline
    for (let k = 1; k <= 12; k++) expect(rw.add(1200 + k * 250, 16 + k * 60)).toBeCloseTo(240, 6);
    // Reports a few ms apart are noise until they span a quarter second.
    const quick = new RateWindow();
    quick.add(0, 0);
    expect(quick.add(100, 50)).toBeNull();
    expect(quick.add(300, 150)).toBeCloseTo(500, 6);
  });

  it("the writer's progress carries it beside the average since the start", async () => {
    // Four chunks of 10 with a pause before each: a report after each, about 150 ms apart, and one at the end
    // (a loaded machine only stretches the pauses, which lengthens the span the rate needs).
    async function* rows(): AsyncGenerator<Sample> {
      for (let i = 0; i < 40; i++) {
        if (i % 10 === 0) await sleep(150);
        yield { x: i };
      }
    }
    const seen: WriteProgress[] = [];
    await new DatasetWriter(
      join(dir, 'rate.beton'),
      { x: new IntField() },
      { numWorkers: 0, chunkSize: 10, onProgress: (p) => seen.push(p) },
    ).write(rows());
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]!.recentSamplesPerSec).toBeNull();
    const rated = seen.filter((p) => p.recentSamplesPerSec !== null);
    expect(rated.length).toBeGreaterThan(0);
    for (const p of rated) expect(p.recentSamplesPerSec).toBeGreaterThan(0);
    expect(seen.at(-1)!.samplesPerSec).toBeGreaterThan(0);
  });
});

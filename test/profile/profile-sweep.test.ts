import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { profile } from '../../core/profile/sweep/sweep.js';
import { datasetContentSha256 } from '../../core/reader/content-hash.js';
import { Reader } from '../../core/reader/reader.js';
import type { ProfileRun, TelemetrySample } from '../../core/api/profile-model.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { fakeGpuPaths } from './profile-fake-gpu.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-sweep-'));
const file = join(dir, 'd.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  // Raw 128×104 images in 2 MiB pages: the data fill four of the file's five pages (the first
  // holds the header, a sparse hole beyond it), so a point that read them all finds about
  // three quarters of the file in the page cache. Small JPEGs would fill 1% of one 8 MiB
  // page: the file's residency would then say little about the data's.
  const px = (i: number): { data: Uint8Array; width: number; height: number } => ({
    data: new Uint8Array(128 * 104 * 3).fill(i % 250),
    width: 128,
    height: 104,
  });
  await new DatasetWriter(
    file,
    { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() },
    { numWorkers: 0, pageSize: 2 << 20 },
  ).write(Array.from({ length: 200 }, (_, i) => ({ image: px(i), label: i % 10 })));
});

describe('profile sweep', () => {
  it('measures every grid point, streams samples and gives a verdict; opens the file once before the first point', async () => {
    const samples: TelemetrySample[] = [];
    // Each point's Loader opens its own Reader: count up to the first point's start.
    const open = vi.spyOn(Reader, 'open');
    const openSync = vi.spyOn(Reader, 'openSync');
    let before: [number, number] | null = null;
    let run: ProfileRun;
    try {
      run = await profile(
        {
          file,
          workers: [1, 2],
          batchSizes: [16],
          orders: ['random', 'quasi_random'],
          decoder: 'rrc:32',
          secondsPerPoint: 0.6,
          warmupBatches: 1,
        },
        {
          gpu: false,
          onSample: (s) => samples.push(s),
          onWait: (m) => (before ??= m.startsWith('measuring point 1') ? [open.mock.calls.length, openSync.mock.calls.length] : null),
        },
      );
    } finally {
      open.mockRestore();
      openSync.mockRestore();
    }
    // Reader.open of a local file is one openSync inside it: one open in all.
    expect(before).toEqual([1, 1]);
    // The content hash of the one recipe is recorded.
    expect(run.dataset?.contentSha256).toBe(datasetContentSha256(file));
    expect(run.status).toBe('ok');
    expect(run.points.map((p) => [p.config.workers, p.config.order])).toEqual([
      [1, 'random'],
      [2, 'random'],
      [1, 'quasi_random'],
      [2, 'quasi_random'],
    ]);
    for (const p of run.points) {
      expect(p.imagesPerSec).toBeGreaterThan(0);
      expect(p.waitP95Ms).toBeGreaterThanOrEqual(p.waitP50Ms);
      expect(p.cpuPerCore.length).toBeGreaterThan(0);
      // Issue 33 item 2: the residency that feeds the disk-bound verdict, from a real point:
      // the file was just written and the point read it, so most of it is in the page cache.
      expect(p.pageCacheResident, `point ${p.index}: residency`).not.toBeNull();
      expect(p.pageCacheResident!).toBeGreaterThan(0.5);
    }
    const st = statSync(file);
    expect((st.blocks * 512) / st.size, 'the data fill most of the file').toBeGreaterThan(0.7);
    expect(samples.length).toBeGreaterThan(4);
    expect(samples.some((s) => s.point !== null && (s.imagesPerSec ?? 0) > 0)).toBe(true);
    // The loader's wait per step while a point is measured; none between points.
    expect(samples.some((s) => s.point !== null && typeof s.waitMsPerStep === 'number' && s.waitMsPerStep >= 0)).toBe(true);
    expect(samples.filter((s) => s.point === null).every((s) => s.waitMsPerStep === null)).toBe(true);
    expect(samples.some((s) => (s.processCpu ?? 0) > 0)).toBe(true);
    expect(run.verdict?.evidence.length).toBeGreaterThan(0);
    expect(run.dataset?.numSamples).toBe(200);
  });

  it('a point whose batches are always ready still lets the event loop turn (beton serve answers and streams meanwhile)', async () => {
    // Int + float rows are gathered on the consumer's thread: every batch is ready at once, so
    // without a turn now and then the read loop never leaves the microtask queue — a server
    // measuring in its own process answered nothing for the whole point.
    const tab = join(dir, 'rows.beton');
    await new DatasetWriter(tab, { label: new IntField(), value: new FloatField() }, { numWorkers: 0 }).write(
      Array.from({ length: 20_000 }, (_, i) => ({ label: i % 10, value: i / 7 })),
    );
    let last = performance.now();
    let gap = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 10);
    try {
      const run = await profile({ file: tab, workers: [1], batchSizes: [64], secondsPerPoint: 1.5, warmupBatches: 1 }, { gpu: false });
      expect(run.status).toBe('ok');
      expect(run.points[0]!.imagesPerSec).toBeGreaterThan(0);
    } finally {
      clearInterval(tick);
    }
    // Without the turns the timer waited the whole 1.5 s point.
    expect(gap).toBeLessThan(750);
  });

  it('cancels between points; the plan keeps batchesAhead', async () => {
    const ac = new AbortController();
    const run = await profile(
      { file, workers: [1, 1, 1], batchSizes: [16], decoder: 'rrc:32', secondsPerPoint: 0.3, warmupBatches: 1, batchesAhead: 5 },
      { gpu: false, signal: ac.signal, onPoint: () => ac.abort() },
    );
    expect(run.status).toBe('cancelled');
    expect(run.points.length).toBe(1);
    expect(run.plan).toMatchObject({ batchesAhead: 5 });
  });

  it('beton profile --json stores the run with GPU readings from (a fake) nvidia-smi', async () => {
    // In-process (core/cli/main.ts, as bin/beton.js runs it): nvidia-smi is found on PATH and
    // the database named by $BETON_DB when the command runs, so both are stubbed for it.
    const db = join(dir, 'runs.sqlite');
    const fake = fakeGpuPaths();
    vi.stubEnv('PATH', fake.withFake);
    vi.stubEnv('BETON_DB', db);
    try {
      const r = await cliInProcess(
        'profile',
        file,
        '--workers',
        '1',
        '--batch-sizes',
        '16',
        '--decoder',
        'rrc:32',
        '--seconds',
        '1',
        '--batches-ahead',
        '6',
        '--json',
      );
      expect(r.code, r.err).toBe(0);
      const out = JSON.parse(r.out) as {
        id: number;
        plan: { batchesAhead?: number };
        points: Array<{ gpuUtilMean: number | null }>;
        verdict: { kind: string };
      };
      expect(out.plan.batchesAhead).toBe(6);
      expect(out.id).toBeGreaterThan(0);
      expect(out.points).toHaveLength(1);
      expect(out.points[0]!.gpuUtilMean).not.toBeNull();
      const list = await cliInProcess('runs', 'list', '--json');
      expect(list.code, list.err).toBe(0);
      expect((JSON.parse(list.out) as Array<{ id: number }>).map((x) => x.id)).toContain(out.id);
    } finally {
      vi.unstubAllEnvs();
      fake.cleanup();
    }
  });
});

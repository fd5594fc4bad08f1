/**
 * The app's check as a job (checks.start / checks.cancel): progress from the check's own
 * loop, the DatasetCheck in jobs:finished and kept beside the file; a cancel ends the job as
 * cancelled and keeps no result.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import type { ApiEvent, FinishedEvent, ProgressEvent } from '../../core/api/contract.js';
import { buildDataset } from '../../core/app/build.js';
import { checkSidecarPath } from '../../core/app/check-dataset.js';
import { BetonService } from '../../core/services/beton-service.js';

const dir = mkdtempSync(join(tmpdir(), 'check-job-'));
const ROWS = 6000;
let service: BetonService;

/** A table dataset of `rows` rows (many worker batches, so a cancel on the first progress lands mid-check). */
async function table(name: string, rows: number): Promise<string> {
  const lines = ['id,score'];
  for (let i = 0; i < rows; i++) lines.push(`${i},${(i % 97) / 97}`);
  writeFileSync(join(dir, `${name}.csv`), lines.join('\n') + '\n');
  const out = join(dir, `${name}.beton`);
  const cfg = parseBuildConfig({ source: { type: 'table', path: join(dir, `${name}.csv`) }, output: out } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
  return out;
}

async function start(path: string): Promise<string> {
  const r = await service.call('checks.start', { path });
  if (!r.ok) throw new Error(r.error.message);
  return (r.value as { jobId: string }).jobId;
}

/** The events of one job until its jobs:finished; `onProgress` may act on each progress event as it is emitted. */
function eventsOf(onProgress?: (e: ProgressEvent) => void): { progress: ProgressEvent[]; finished: Promise<FinishedEvent> } {
  const progress: ProgressEvent[] = [];
  let off = (): void => {};
  const finished = new Promise<FinishedEvent>((resolve) => {
    off = service.on((e: ApiEvent) => {
      if (e.event === 'jobs:progress' && e.data.kind === 'check') {
        progress.push(e.data);
        onProgress?.(e.data);
      } else if (e.event === 'jobs:finished' && e.data.kind === 'check') {
        off();
        resolve(e.data);
      }
    });
  });
  return { progress, finished };
}

beforeAll(async () => {
  service = new BetonService({ roots: [dir], host: 'server', dbPath: join(dir, 'runs.sqlite') });
}, 60_000);
afterAll(() => {
  service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('checks.start / checks.cancel', () => {
  it('start: a job id, progress (samples decoded of the total, a rate), then jobs:finished with the check, kept beside the file', async () => {
    const file = await table('ok', ROWS);
    const ev = eventsOf();
    const jobId = await start(file);
    const fin = await ev.finished;
    expect(fin.jobId).toBe(jobId);
    expect(fin.status).toBe('ok');
    expect(fin.kind === 'check' && fin.result?.beton.numSamples).toBe(ROWS);
    expect(ev.progress.length).toBeGreaterThan(0);
    for (const p of ev.progress) {
      expect(p.jobId).toBe(jobId);
      expect(p.total).toBe(ROWS);
      expect(p.done).toBeGreaterThan(0);
      expect(p.done).toBeLessThanOrEqual(ROWS);
      expect(p.rate, 'samples were decoded: the rate is above 0').toBeGreaterThan(0);
    }
    // Counts only grow; the last one is every sample.
    const dones = ev.progress.map((p) => p.done);
    expect([...dones].sort((a, b) => a - b)).toEqual(dones);
    expect(dones[dones.length - 1]).toBe(ROWS);
    // datasets.check {run: false} reads what the job kept.
    const kept = await service.call('datasets.check', { path: file });
    expect(kept.ok && (kept.value as { createdAt: string } | null)?.createdAt).toBe(fin.kind === 'check' ? fin.result?.createdAt : null);
  }, 120_000);

  it('cancel on the first progress: the job ends cancelled (not failed), and no result kept', async () => {
    const file = await table('cancel', ROWS);
    let jobId = '';
    const answers: Array<Promise<unknown>> = [];
    const ev = eventsOf((p) => {
      // Synchronously inside the event, as soon as the check reports: it has most of its samples to go.
      if (answers.length === 0) answers.push(service.call('checks.cancel', { jobId: p.jobId }));
    });
    jobId = await start(file);
    const fin = await ev.finished;
    expect(fin.jobId).toBe(jobId);
    expect(fin.status).toBe('cancelled');
    expect(fin.message).toBe('cancelled');
    expect(await answers[0]).toEqual({ ok: true, value: { cancelled: true } });
    // It stopped mid-way: no progress reached the total, and nothing is kept.
    expect(Math.max(...ev.progress.map((p) => p.done))).toBeLessThan(ROWS);
    expect(existsSync(checkSidecarPath(file))).toBe(false);
    const kept = await service.call('datasets.check', { path: file });
    expect(kept).toEqual({ ok: true, value: null });
    // A cancel of a finished job says so.
    expect(await service.call('checks.cancel', { jobId })).toEqual({ ok: true, value: { cancelled: false } });
  }, 120_000);

  it('cancel before the work starts: cancelled, nothing kept', async () => {
    const file = await table('early', 200);
    const ev = eventsOf();
    const jobId = await start(file);
    expect(await service.call('checks.cancel', { jobId })).toEqual({ ok: true, value: { cancelled: true } });
    const fin = await ev.finished;
    expect(fin.status).toBe('cancelled');
    expect(existsSync(checkSidecarPath(file))).toBe(false);
  }, 60_000);

  it('a path outside the roots is refused before a job exists', async () => {
    const r = await service.call('checks.start', { path: '/etc/passwd' });
    expect(r.ok).toBe(false);
    expect(service.runningJobs).toBe(0);
  });
});

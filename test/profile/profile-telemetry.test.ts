import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../../core/profile/sampling/telemetry.js';
import type { TelemetrySample } from '../../core/api/profile-model.js';
import { fakeGpuPaths, sleep, until, withPath } from './profile-fake-gpu.js';

const paths = fakeGpuPaths();
const tmp = mkdtempSync(join(tmpdir(), 'beton-telemetry-'));
const bigFile = join(tmp, 'direct.bin');
writeFileSync(bigFile, Buffer.alloc(2 << 20, 1));
afterAll(() => {
  paths.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

describe('telemetry', () => {
  it('combines CPU, memory, reads and GPU into samples every interval, with the throughput set from outside', async () => {
    await withPath(paths.withFake, async () => {
      const seen: TelemetrySample[] = [];
      const t = await startTelemetry({ intervalMs: 50, gpu: true, onSample: (s) => seen.push(s) });
      await until(() => seen.some((s) => s.gpus.length > 0));
      // 2 MiB read from storage by a child (O_DIRECT: past the page cache); once reaped, its
      // reads count as ours (/proc/self/io), so the samples must add up to at least that.
      const dd = spawnSync('dd', [`if=${bigFile}`, 'of=/dev/null', 'iflag=direct', 'bs=1M'], { encoding: 'utf8', timeout: 30_000 });
      expect(dd.status, dd.stderr).toBe(0);
      t.setThroughput(1234.5, 3);
      const mark = seen.length;
      await until(() => seen.length >= mark + 3);
      const samples = await t.stop();
      const after = seen.length;
      await sleep(150);
      expect(seen.length).toBe(after); // quiet after stop()
      expect(samples).toEqual(seen);
      expect(samples.length).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < samples.length; i++) expect(samples[i]!.t).toBeGreaterThan(samples[i - 1]!.t);
      const last = samples[samples.length - 1]!;
      expect(last.cpuPerCore.length).toBeGreaterThanOrEqual(cpus().length);
      expect(last.rssBytes).toBeGreaterThan(10 << 20);
      expect(samples.reduce((sum, x) => sum + x.diskReadBytes, 0)).toBeGreaterThanOrEqual(2 << 20);
      expect(last.gpus.map((g) => g.index)).toEqual([0, 1]);
      expect(last).toMatchObject({ imagesPerSec: 1234.5, point: 3 });
      expect(samples[0]).toMatchObject({ imagesPerSec: null, point: null });
      expect(t.gpuUnavailable).toBeNull();
      // Our own CPU as a fraction of the machine; no wait hook, no wait per step.
      for (const x of samples) {
        expect(typeof x.processCpu).toBe('number');
        expect(x.processCpu).toBeLessThanOrEqual(1);
        expect(x.waitMsPerStep).toBeNull();
      }
      // Sampling /proc and nvidia-smi's output takes some CPU of ours in every run.
      expect(Math.max(...samples.map((x) => x.processCpu ?? 0))).toBeGreaterThan(0);
    });
  });

  it('takes the wait per step from a pull hook, and sees its own busy CPU', async () => {
    const seen: TelemetrySample[] = [];
    let pulls = 0;
    const t = await startTelemetry({
      intervalMs: 60,
      gpu: false,
      onSample: (s) => seen.push(s),
      waitPerStep: () => (++pulls % 2 ? 12.5 : null),
    });
    // Keep one core busy for a while: the process's share of the machine must show it.
    const end = performance.now() + 400;
    while (performance.now() < end) await new Promise((r) => setImmediate(r));
    const samples = await t.stop();
    expect(samples.map((x) => x.waitMsPerStep).slice(0, 2)).toEqual([12.5, null]);
    const busiest = Math.max(...samples.map((x) => x.processCpu ?? 0));
    expect(busiest).toBeGreaterThan(0.1 / cpus().length); // a tenth of a core at least, even on a loaded machine
  });

  it('keeps ticks on a grid of the interval', async () => {
    const t = await startTelemetry({ intervalMs: 40, gpu: false });
    await sleep(600);
    const s = await t.stop();
    // a loaded test machine may skip slots, but never drifts off the grid nor doubles up
    expect(s.length).toBeGreaterThanOrEqual(3);
    expect(s.length).toBeLessThanOrEqual(16);
    for (const x of s) expect(x.gpus).toEqual([]);
  });

  it('without nvidia-smi: says why once, samples carry no GPU', async () => {
    await withPath(paths.withoutGpu, async () => {
      const reasons: string[] = [];
      const t = await startTelemetry({ intervalMs: 50, gpu: true, onGpuUnavailable: (r) => reasons.push(r) });
      await until(() => reasons.length > 0 && t.samples().length >= 3);
      const s = await t.stop();
      expect(reasons).toEqual(['no GPU: nvidia-smi not found on PATH']);
      expect(t.gpuUnavailable).toBe(reasons[0]);
      expect(s.every((x) => x.gpus.length === 0)).toBe(true);
    });
  });

  it('takes throughput from a pull hook, per window', async () => {
    const windows: number[] = [];
    const t = await startTelemetry({ intervalMs: 50, gpu: false, throughput: (w) => (windows.push(w), w) });
    await until(() => t.samples().length >= 3);
    const s = await t.stop();
    expect(s.map((x) => x.imagesPerSec)).toEqual(windows.slice(0, s.length));
    for (const w of windows) expect(w).toBeGreaterThan(0);
  });

  it.runIf(process.platform === 'linux')('samples another process tree with pid', async () => {
    const child = spawn(process.execPath, ['-e', 'const b=Buffer.alloc(96<<20,1);setInterval(()=>b[0]++,1000)'], { stdio: 'ignore' });
    try {
      await sleep(300);
      const t = await startTelemetry({ intervalMs: 50, gpu: false, pid: child.pid! });
      await until(() => t.samples().some((x) => x.rssBytes > 96 << 20));
      const s = await t.stop();
      expect(Math.max(...s.map((x) => x.rssBytes))).toBeGreaterThan(96 << 20);
    } finally {
      child.kill('SIGKILL');
    }
  });

  // Issue 33 item 2: residency is measured, never excused. A file the test has just written and
  // read whole is in the page cache (mincore, or fincore without the addon): above one half,
  // whatever else the machine does in between. `null` here would be a broken measurement.
  it('reports page-cache residency of a file just read (above 0.5), and null without a file', async () => {
    const none = await startTelemetry({ gpu: false });
    expect(await none.pageCacheResidency()).toBeNull();
    await none.stop();
    const file = join(tmp, 'resident.bin');
    writeFileSync(file, Buffer.alloc(4 << 20, 7));
    expect(readFileSync(file).length).toBe(4 << 20);
    const t = await startTelemetry({ gpu: false, file });
    const r = await t.pageCacheResidency();
    await t.stop();
    expect(r, 'residency of a file just read').not.toBeNull();
    expect(r!).toBeGreaterThan(0.5);
    expect(r!).toBeLessThanOrEqual(1);
  });
});

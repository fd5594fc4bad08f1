import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  gpuInventory,
  parseGpuLine,
  parseInventoryLine,
  parseSmiNumber,
  startGpuSampler,
  toReading,
} from '../../core/profile/sampling/gpu-sampler.js';
import { processTree } from '../../core/profile/sampling/process-sampler.js';
import type { GpuReading } from '../../core/api/profile-model.js';
import { fakeGpuPaths, sleep, until, withPath } from './profile-fake-gpu.js';

const paths = fakeGpuPaths();
afterAll(() => paths.cleanup());

/**
 * Runs the sampler until `done` holds (or 15 s: starting node on a loaded machine is slow),
 * then stops it and collects what it reported.
 */
async function collect(path: string, done: (ticks: number, reasons: number) => boolean, env: Record<string, string> = {}, intervalMs = 50) {
  return withPath(
    path,
    async () => {
      const ticks: GpuReading[][] = [];
      const reasons: string[] = [];
      const s = startGpuSampler({ intervalMs, onReading: (r) => ticks.push(r), onUnavailable: (r) => reasons.push(r) });
      await until(() => done(ticks.length, reasons.length));
      await sleep(100); // room for a second (wrong) report to show up
      s.stop();
      const atStop = ticks.length;
      await sleep(200);
      return { ticks, reasons, atStop };
    },
    env,
  );
}

/** pids of our child processes running the fake nvidia-smi. */
async function fakeChildren(): Promise<number[]> {
  const out: number[] = [];
  for (const pid of (await processTree(process.pid)).slice(1)) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes('fake-nvidia-smi')) out.push(pid);
  }
  return out;
}

describe('gpu sampler: parsing', () => {
  it('reads numbers and the ways nvidia-smi says "unknown"', () => {
    expect(parseSmiNumber(' 35')).toBe(35);
    expect(parseSmiNumber(' 70.12 ')).toBe(70.12);
    expect(parseSmiNumber('35 %')).toBe(35);
    for (const s of ['[N/A]', ' [Not Supported]', '[Unknown Error]', '', '  ', undefined]) expect(parseSmiNumber(s)).toBeNull();
  });

  it('parses a query line, with spaces, N/A values and a comma in the name', () => {
    expect(parseGpuLine('0, NVIDIA H100 80GB HBM3, 35, 1234, 81559, 70.12')).toEqual({
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      utilPercent: 35,
      memoryUsedMiB: 1234,
      memoryTotalMiB: 81559,
      powerW: 70.12,
    });
    expect(parseGpuLine('1,Tesla, Weird,  0 ,  5,  16384 , [Not Supported]')).toEqual({
      index: 1,
      name: 'Tesla, Weird',
      utilPercent: 0,
      memoryUsedMiB: 5,
      memoryTotalMiB: 16384,
      powerW: null,
    });
    expect(parseGpuLine('No devices were found')).toBeNull();
    expect(parseGpuLine('x, a, 1, 2, 3, 4')).toBeNull();
  });

  it('leaves a GPU without utilisation or memory out of a tick instead of calling it idle', () => {
    expect(toReading(parseGpuLine('2, MIG 1g.10gb, [N/A], 100, 10240, [N/A]')!)).toBeNull();
    expect(toReading(parseGpuLine('0, A100, 50, 100, 40960, [N/A]')!)).toEqual({
      index: 0,
      utilPercent: 50,
      memoryUsedMiB: 100,
      powerW: null,
    });
  });

  it('parses inventory lines', () => {
    expect(parseInventoryLine('0, NVIDIA H200, 143771')).toEqual({ index: 0, name: 'NVIDIA H200', memoryTotalMiB: 143771 });
    expect(parseInventoryLine('junk')).toBeNull();
  });
});

describe('gpu sampler: with a fake nvidia-smi', () => {
  it('emits one reading per GPU per tick and stops the child on stop()', async () => {
    const { ticks, reasons, atStop } = await collect(paths.withFake, (t) => t >= 4);
    expect(reasons).toEqual([]);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    for (const t of ticks) expect(t.map((r) => r.index)).toEqual([0, 1]);
    expect(ticks[0]![0]).toEqual({ index: 0, utilPercent: 10, memoryUsedMiB: 1000, powerW: 70 });
    expect(ticks[1]![1]).toEqual({ index: 1, utilPercent: 47, memoryUsedMiB: 1101, powerW: 71.1 });
    expect(ticks.length).toBe(atStop); // nothing after stop()
    if (process.platform === 'linux') expect(await fakeChildren()).toEqual([]);
  });

  it('drops GPUs that report [N/A] utilisation', async () => {
    const { ticks } = await collect(paths.withFake, (t) => t >= 2, { FAKE_NVIDIA_SMI: 'na' });
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    for (const t of ticks) expect(t.map((r) => r.index)).toEqual([0]);
  });

  it('says "no GPU" once when nvidia-smi fails (no driver)', async () => {
    const { ticks, reasons } = await collect(paths.withFake, (_, r) => r >= 1, { FAKE_NVIDIA_SMI: 'fail' });
    expect(ticks).toEqual([]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^no GPU: nvidia-smi exited with code 9: NVIDIA-SMI has failed/);
  });

  it('says "no GPU" once when there is no device', async () => {
    const { reasons } = await collect(paths.withFake, (_, r) => r >= 1, { FAKE_NVIDIA_SMI: 'none' });
    expect(reasons).toEqual(['no GPU: nvidia-smi exited with code 6: No devices were found']);
  });

  it('reports once when nvidia-smi stops by itself, after its last tick', async () => {
    const { ticks, reasons } = await collect(paths.withFake, (_, r) => r >= 1, { FAKE_NVIDIA_SMI_TICKS: '3' });
    expect(ticks).toHaveLength(3);
    expect(reasons).toEqual(['no GPU: nvidia-smi exited with code 0']);
  });

  it('lists GPUs for the machine info', async () => {
    expect(await withPath(paths.withFake, () => gpuInventory())).toEqual([
      { index: 0, name: 'Fake GPU 0 80GB', memoryTotalMiB: 81559 },
      { index: 1, name: 'Fake GPU 1 80GB', memoryTotalMiB: 81559 },
    ]);
  });
});

describe('gpu sampler: without nvidia-smi', () => {
  it('says "no GPU" exactly once and stays quiet', async () => {
    const { ticks, reasons } = await collect(paths.withoutGpu, (_, r) => r >= 1);
    expect(ticks).toEqual([]);
    expect(reasons).toEqual(['no GPU: nvidia-smi not found on PATH']);
  });

  it('has an empty inventory', async () => {
    expect(await withPath(paths.withoutGpu, () => gpuInventory())).toEqual([]);
  });

  // Also the regression test for a nasty one: kill() on a child that failed to spawn makes
  // libuv signal an uninitialised pid — once 0, it SIGTERMed the test runner's process group.
  it('is silent, and kills nothing, when stopped before nvidia-smi could even fail', async () => {
    const reasons: string[] = [];
    await withPath(paths.withoutGpu, async () => {
      const s = startGpuSampler({ intervalMs: 50, onReading: () => undefined, onUnavailable: (r) => reasons.push(r) });
      s.stop();
      s.stop();
      await sleep(100);
    });
    expect(reasons).toEqual([]);
  });
});

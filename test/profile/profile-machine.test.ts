import { cpus, hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupMemoryLimit, machineInfo } from '../../core/profile/machine.js';
import { fakeGpuPaths, withPath } from './profile-fake-gpu.js';

const paths = fakeGpuPaths();
afterAll(() => paths.cleanup());

describe('machine info', () => {
  it('describes this machine, with no GPU when there is no nvidia-smi', async () => {
    const m = await withPath(paths.withoutGpu, () => machineInfo());
    expect(m.hostname).toBe(hostname());
    expect(m.cpuModel).toBe(cpus()[0]?.model.trim() ?? 'unknown');
    expect(m.cores).toBeGreaterThanOrEqual(1);
    expect(m.ramBytes).toBeGreaterThan(0);
    expect(m.os).toMatch(/\S+ \S+ \S+/);
    expect(m.node).toBe(process.version);
    expect(m.gpus).toEqual([]);
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
  });

  it('lists GPUs through nvidia-smi', async () => {
    const m = await withPath(paths.withFake, () => machineInfo());
    expect(m.gpus.map((g) => g.name)).toEqual(['Fake GPU 0 80GB', 'Fake GPU 1 80GB']);
  });

  it('reads a cgroup memory limit when there is one', async () => {
    const l = await cgroupMemoryLimit();
    expect(l === null || l > 0).toBe(true);
  });
});

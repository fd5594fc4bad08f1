import { existsSync, readFileSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupMemoryLimit, machineInfo } from '../../core/profile/sampling/machine.js';
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

  // Issue 33 item 8: the answer is compared with what the kernel's files say here: the first
  // of cgroup v2's memory.max / v1's limit_in_bytes holding a number ("max": no limit); none: null.
  it('reads the cgroup memory limit the kernel reports, null when there is none', async () => {
    let expected: number | null = null;
    for (const f of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
      const text = existsSync(f) ? readFileSync(f, 'utf8').trim() : '';
      if (/^\d+$/.test(text) && Number(text) > 0) {
        expected = Number(text);
        break;
      }
    }
    expect(await cgroupMemoryLimit()).toBe(expected);
  });
});

import { readFile } from 'node:fs/promises';
import { arch, availableParallelism, cpus, hostname, release, totalmem, type } from 'node:os';
import { gpuInventory } from './gpu-sampler.js';
import type { MachineInfo } from '../../api/profile-model.js';

/**
 * The memory limit of our cgroup (v2, then v1), or null. In a container the page cache is
 * charged to the cgroup, so "does the dataset fit in RAM" must be asked of the limit, not of
 * the host's memory that os.totalmem() reports.
 */
export async function cgroupMemoryLimit(): Promise<number | null> {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const v = Number((await readFile(path, 'utf8')).trim()); // "max" → NaN: no limit
      if (Number.isFinite(v) && v > 0) return v;
    } catch {
      // not there: next, or none
    }
  }
  return null;
}

/** What a profile run was measured on. Never throws: unknown parts read 'unknown' / 0 / []. */
export async function machineInfo(): Promise<MachineInfo> {
  const safe = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch {
      return fallback;
    }
  };
  const [gpus, limit] = await Promise.all([gpuInventory(), cgroupMemoryLimit()]);
  const host = safe(totalmem, 0);
  return {
    hostname: safe(hostname, 'unknown'),
    cpuModel: safe(() => cpus()[0]?.model.trim() ?? 'unknown', 'unknown'),
    // Logical CPUs we may run on (respects CPU affinity), which is what workers can use.
    cores: safe(availableParallelism, 1),
    ramBytes: limit != null && (host === 0 || limit < host) ? limit : host,
    os: safe(() => `${type()} ${release()} ${arch()}`, process.platform),
    node: process.version,
    gpus,
  };
}

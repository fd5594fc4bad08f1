import { readFileSync } from 'node:fs';

export interface CpuSample<T> {
  value: T;
  wallMs: number;
  /** Cores this process kept busy: user + system time of all its threads / wall time. */
  cores: number;
  /** Cores other processes used, or the hypervisor stole, meanwhile (Linux only; null elsewhere). */
  otherCores: number | null;
}

/**
 * Runs `fn` and reports how many cores the whole process kept busy (workers, libuv's pool
 * and libvips included). On a small machine this separates "the writer adds CPU work"
 * (cores near the machine's count) from "the writer waits" (pipeline stalls, fsync: cores
 * well below it). It also reports what everything else on the machine used meanwhile: on a
 * shared 2-core box a test run next door halves a result, and that should be visible.
 */
export async function withCpu<T>(fn: () => Promise<T>): Promise<CpuSample<T>> {
  const busy0 = machineBusySeconds();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  const d = process.cpuUsage(cpu0);
  const busy1 = machineBusySeconds();
  const ownSeconds = (d.user + d.system) / 1e6;
  const otherCores = busy0 === null || busy1 === null ? null : Math.max(0, (busy1 - busy0 - ownSeconds) / (wallMs / 1000));
  return { value, wallMs, cores: ownSeconds / (wallMs / 1000), otherCores };
}

/**
 * CPU seconds since boot that were not idle for us, from /proc/stat (USER_HZ is 100 on
 * Linux): busy time of every process plus steal (a VM's cores lent to another guest slow
 * us just as a neighbour process does).
 */
function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [label, ...fields] = line.trim().split(/\s+/);
    if (label !== 'cpu') return null;
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return null;
  }
}

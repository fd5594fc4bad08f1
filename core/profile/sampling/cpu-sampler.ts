import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';

/** Cumulative CPU time of one logical CPU, in whatever unit its source counts (ticks or ms). */
export interface CpuTimes {
  busy: number;
  total: number;
}

/**
 * Parses /proc/stat's `cpuN` lines into cumulative times, indexed by N. A CPU that is offline
 * has no line; its slot stays `{0, 0}` so indices keep matching the kernel's numbering.
 */
export function parseProcStat(text: string): CpuTimes[] {
  const out: CpuTimes[] = [];
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    // user nice system idle iowait irq softirq steal guest guest_nice. guest and guest_nice
    // are already inside user and nice, so adding them would count that time twice.
    const v = m[2]!.trim().split(/\s+/).map(Number);
    const f = (i: number): number => (Number.isFinite(v[i]) ? v[i]! : 0);
    const busy = f(0) + f(1) + f(2) + f(5) + f(6) + f(7);
    const idle = f(3) + f(4); // iowait is idle: the CPU could have run something else
    const n = Number(m[1]);
    while (out.length < n) out.push({ busy: 0, total: 0 });
    out[n] = { busy, total: busy + idle };
  }
  return out;
}

/** The same from os.cpus() (ms), for platforms without /proc. */
export function cpuTimesFromOs(
  list: ReadonlyArray<{ times: { user: number; nice: number; sys: number; idle: number; irq: number } }>,
): CpuTimes[] {
  return list.map(({ times: t }) => {
    const busy = t.user + t.nice + t.sys + t.irq;
    return { busy, total: busy + t.idle };
  });
}

/**
 * Busy fraction 0..1 of each CPU between two readings. Counters can step backwards (iowait
 * does on some kernels, and a CPU can go offline), so every ratio is clamped.
 */
export function busyFractions(prev: readonly CpuTimes[], next: readonly CpuTimes[]): number[] {
  return next.map((n, i) => {
    const p = prev[i] ?? { busy: 0, total: 0 };
    const dt = n.total - p.total;
    if (!(dt > 0)) return 0;
    return Math.min(1, Math.max(0, (n.busy - p.busy) / dt));
  });
}

/** Cumulative times of every logical CPU: /proc/stat on Linux, os.cpus() elsewhere, [] if neither works. */
export async function readCpuTimes(): Promise<CpuTimes[]> {
  try {
    const parsed = parseProcStat(await readFile('/proc/stat', 'utf8'));
    if (parsed.length > 0) return parsed;
  } catch {
    // not Linux (or /proc not mounted): fall through to os.cpus()
  }
  try {
    return cpuTimesFromOs(cpus());
  } catch {
    return [];
  }
}

export interface CpuSampler {
  /** Busy fraction per logical CPU since the previous call (or since the sampler was made). */
  sample(): Promise<number[]>;
}

/** Takes the first reading now, so the first sample() covers a real interval. */
export async function createCpuSampler(): Promise<CpuSampler> {
  let prev = await readCpuTimes();
  return {
    async sample() {
      const next = await readCpuTimes();
      const out = busyFractions(prev, next);
      prev = next;
      return out;
    },
  };
}

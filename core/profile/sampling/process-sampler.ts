import { readdir, readFile } from 'node:fs/promises';

export { pageCacheResidency } from './page-cache-residency.js';

/** `read_bytes` of a /proc/PID/io text: bytes this process caused to be fetched from storage. */
export function parseIoReadBytes(text: string): number | null {
  const m = /^read_bytes:\s*(\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

/** `VmRSS` of a /proc/PID/status text, in bytes (kernel threads and zombies have none). */
export function parseVmRssBytes(text: string): number | null {
  const m = /^VmRSS:\s*(\d+)\s*kB/m.exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/**
 * Parent pid from a /proc/PID/stat text. The command name (field 2) is in parentheses and may
 * itself hold spaces and ')' — so the fields are counted from the last ')'.
 */
export function parseStatPpid(text: string): number | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/); // state ppid pgrp …
  const ppid = Number(rest[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

/**
 * CPU time of a /proc/PID/stat text in clock ticks: utime + stime of the process (all its
 * threads) plus cutime + cstime, what its reaped children used (so a child's time is not lost
 * when it exits). Fields counted from the last ')', as in parseStatPpid.
 */
export function parseStatCpuTicks(text: string): number | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/); // field 3 (state) is rest[0]: utime (14) is rest[11]
  const v = [11, 12, 13, 14].map((i) => Number(rest[i]));
  return v.every((x) => Number.isFinite(x)) ? v.reduce((a, b) => a + b, 0) : null;
}

/** Linux's USER_HZ: /proc reports times in these ticks (100 on every mainstream architecture). */
const TICKS_PER_SECOND = 100;

/** `root` and all its descendants, given every process's parent. */
export function descendants(root: number, parentOf: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentOf) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue; // pid reuse during a scan could, in theory, make a cycle
    seen.add(pid);
    out.push(pid);
    for (const c of children.get(pid) ?? []) queue.push(c);
  }
  return out;
}

const readText = async (path: string): Promise<string | null> => {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null; // gone (exited between readdir and read), not permitted, or no /proc
  }
};

/**
 * Every process's parent, from /proc/*\/stat. /proc/PID/task/TID/children would be cheaper,
 * but it needs CONFIG_PROC_CHILDREN, which many kernels (and VMs) lack; a scan always works.
 */
export async function readParents(): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return map;
  }
  const pids = names.filter((n) => /^\d+$/.test(n));
  const texts = await Promise.all(pids.map((p) => readText(`/proc/${p}/stat`)));
  pids.forEach((p, i) => {
    const ppid = texts[i] == null ? null : parseStatPpid(texts[i]!);
    if (ppid != null) map.set(Number(p), ppid);
  });
  return map;
}

/** pids of `root`'s process tree, root first ([] when root is gone or /proc is missing). */
export async function processTree(root: number): Promise<number[]> {
  const parents = await readParents();
  return parents.has(root) ? descendants(root, parents) : [];
}

export interface ProcessReading {
  /** Resident memory (summed over the tree: shared pages count once per process). */
  rssBytes: number | null;
  /** Bytes read from storage since the previous reading (null when unknown). */
  diskReadBytes: number | null;
  /** CPU time (user + system, all threads, reaped children) used since the previous reading, in ms (null when unknown). */
  cpuMs: number | null;
}

export interface ProcessSampler {
  sample(): Promise<ProcessReading>;
}

/**
 * RSS and storage reads of this process, or of `pid` and its descendants.
 *
 * Why the tree's summed read_bytes works as a counter: when a child is reaped, the kernel adds
 * its I/O counters to its parent's, so the sum over the live tree only grows, even as
 * processes come and go (a new process's whole count is new reading). It can drop when a
 * process leaves the tree (re-parented to init); such steps are clamped to 0.
 * For ourselves /proc/self/io already covers every thread (workers, libuv's pool) and reaped
 * children. Without /proc (macOS, Windows) reads are null and RSS is ours only.
 */
export async function createProcessSampler(opts: { pid?: number } = {}): Promise<ProcessSampler> {
  const pid = opts.pid;
  const readTotal = async (): Promise<{ read: number | null; rss: number | null; cpuMs: number | null }> => {
    if (pid == null) {
      const io = await readText('/proc/self/io');
      const u = process.cpuUsage(); // every thread of ours: the loader's workers are threads
      return { read: io == null ? null : parseIoReadBytes(io), rss: process.memoryUsage.rss(), cpuMs: (u.user + u.system) / 1000 };
    }
    const tree = await processTree(pid);
    if (tree.length === 0) return { read: null, rss: null, cpuMs: null };
    const [ios, statuses, stats] = await Promise.all([
      Promise.all(tree.map((p) => readText(`/proc/${p}/io`))),
      Promise.all(tree.map((p) => readText(`/proc/${p}/status`))),
      Promise.all(tree.map((p) => readText(`/proc/${p}/stat`))),
    ]);
    let read: number | null = null;
    let rss: number | null = null;
    let ticks: number | null = null;
    for (let i = 0; i < tree.length; i++) {
      const r = ios[i] == null ? null : parseIoReadBytes(ios[i]!);
      const m = statuses[i] == null ? null : parseVmRssBytes(statuses[i]!);
      const c = stats[i] == null ? null : parseStatCpuTicks(stats[i]!);
      if (r != null) read = (read ?? 0) + r;
      if (m != null) rss = (rss ?? 0) + m;
      if (c != null) ticks = (ticks ?? 0) + c;
    }
    return { read, rss, cpuMs: ticks == null ? null : (ticks * 1000) / TICKS_PER_SECOND };
  };
  const first = await readTotal();
  let prev = first.read;
  let prevCpu = first.cpuMs;
  return {
    async sample() {
      const now = await readTotal();
      const diskReadBytes = now.read == null || prev == null ? null : Math.max(0, now.read - prev);
      if (now.read != null) prev = now.read;
      // Like reads, the tree's sum can drop when a process leaves it: clamped.
      const cpuMs = now.cpuMs == null || prevCpu == null ? null : Math.max(0, now.cpuMs - prevCpu);
      if (now.cpuMs != null) prevCpu = now.cpuMs;
      return { rssBytes: now.rss, diskReadBytes, cpuMs };
    },
  };
}

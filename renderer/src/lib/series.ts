/** Chart data from job events and runs: pure functions, bounded in size. */
import { pointKey } from '../../../core/api/profile-plan.js';
import type { PointConfig, PointResult, TelemetrySample } from './types.js';

/**
 * Appends to a bounded series: a point is added at most every `minIntervalMs` (unless
 * `force`, e.g. the final one), and past `max` points every other older point is dropped,
 * so a long job keeps its whole shape in constant memory.
 */
export function appendBounded<T>(
  series: readonly T[],
  item: T,
  o: { now: number; lastAt: number; minIntervalMs: number; max: number; force?: boolean },
): { series: T[]; lastAt: number; added: boolean } {
  if (!o.force && series.length > 0 && o.now - o.lastAt < o.minIntervalMs) return { series: series as T[], lastAt: o.lastAt, added: false };
  let next = [...series, item];
  if (next.length > o.max) next = decimate(next);
  return { series: next, lastAt: o.now, added: true };
}

/** Every other item, always keeping the first and the last. */
export function decimate<T>(xs: readonly T[]): T[] {
  if (xs.length <= 2) return [...xs];
  const out: T[] = [];
  for (let i = 0; i < xs.length - 1; i += 2) out.push(xs[i]!);
  out.push(xs[xs.length - 1]!);
  return out;
}

/** Live per-point throughput: the mean of the non-null images/s samples taken during each point. */
export function livePointRates(samples: readonly TelemetrySample[]): Map<number, number> {
  const acc = new Map<number, { sum: number; n: number }>();
  for (const s of samples) {
    if (s.point === null || s.imagesPerSec === null) continue;
    const a = acc.get(s.point) ?? { sum: 0, n: 0 };
    a.sum += s.imagesPerSec;
    a.n++;
    acc.set(s.point, a);
  }
  return new Map([...acc].map(([k, v]) => [k, v.sum / v.n]));
}

export interface SeriesPoint {
  workers: number;
  [series: string]: number;
}

/** Key of a point's non-worker settings: one line per key in "images/s vs workers". */
export function seriesKey(c: PointConfig): string {
  // One line per engine: FFCV's curve next to ours, never merged into one.
  return `${c.engine ? `${c.engine} · ` : ''}bs ${c.batchSize} · ${c.order.replace('_', '-')}${c.osCache ? '' : ' · process cache'}`;
}

/**
 * Live per-point throughput keyed by the point's settings (pointKey), not by its index: a
 * reading names its point's index in the sweep's grid, which the plan module (pointsOf) maps
 * to settings once; past that, nothing depends on the grid's order.
 */
export function liveBySettings(live: Map<number, number>, grid: readonly PointConfig[]): Map<string, { config: PointConfig; ips: number }> {
  const out = new Map<string, { config: PointConfig; ips: number }>();
  for (const [i, ips] of live) {
    const config = grid[i];
    if (config) out.set(pointKey(config), { config, ips });
  }
  return out;
}

/**
 * "images/s vs workers" rows for recharts: one row per worker count, one column per series.
 * Final points when there are any, else the live rates by settings.
 */
export function workersChart(
  points: readonly PointResult[],
  live: ReadonlyMap<string, { config: PointConfig; ips: number }>,
): { rows: SeriesPoint[]; series: string[] } {
  const cells: Array<{ config: PointConfig; ips: number }> = points.length
    ? points.map((p) => ({ config: p.config, ips: p.imagesPerSec }))
    : [...live.values()];
  const series: string[] = [];
  const byWorkers = new Map<number, SeriesPoint>();
  for (const c of cells) {
    const key = seriesKey(c.config);
    if (!series.includes(key)) series.push(key);
    const row = byWorkers.get(c.config.workers) ?? { workers: c.config.workers };
    row[key] = Math.max(row[key] ?? 0, c.ips);
    byWorkers.set(c.config.workers, row);
  }
  return { rows: [...byWorkers.values()].sort((a, b) => a.workers - b.workers), series };
}

/** Overlay of runs: best images/s per worker count, one column per run ("run 3"). */
export function overlayChart(runs: ReadonlyArray<{ id: number; points: readonly PointResult[] }>): {
  rows: SeriesPoint[];
  series: string[];
} {
  const byWorkers = new Map<number, SeriesPoint>();
  const series: string[] = [];
  runs.forEach((r) => {
    // A run that measured several engines draws one line per engine ("run 3 · ffcv").
    const several = new Set(r.points.map((p) => p.config.engine ?? 'beton')).size > 1;
    for (const p of r.points) {
      const key = several ? `run ${r.id} · ${p.config.engine ?? 'beton'}` : `run ${r.id}`;
      if (!series.includes(key)) series.push(key);
      const row = byWorkers.get(p.config.workers) ?? { workers: p.config.workers };
      row[key] = Math.max(row[key] ?? 0, p.imagesPerSec);
      byWorkers.set(p.config.workers, row);
    }
  });
  return { rows: [...byWorkers.values()].sort((a, b) => a.workers - b.workers), series };
}

export interface TimelineRow {
  /** seconds since the run started */
  t: number;
  ips: number | null;
  /** The machine's mean busy % over all logical CPUs (null: a gap, nothing was read). */
  cpu: number | null;
  /** The loading process's own share of all CPUs (%), null when unknown. */
  proc: number | null;
  /** The consumer's mean wait per batch (ms), null when it took none. */
  wait: number | null;
  /** The median wait per batch of the point being measured (PointResult.waitP50Ms): every engine reports it, ours and Python's. */
  pointWait: number | null;
  [gpu: string]: number | null;
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/**
 * Two readings further apart than this (ms) have a gap between them where nothing was measured
 * (FFCV starting, numba compiling, an ablation): the charts break their lines there rather than
 * draw a smooth arc over it. Telemetry comes about every 250 ms; a loaded machine may delay a
 * reading a little, never by seconds.
 */
export const GAP_MS = 2000;

/**
 * Timeline rows: seconds, images/s, machine and process CPU %, wait per step (the readings and
 * the point's median), and one column per GPU's utilisation. Where two readings are more than
 * GAP_MS apart an empty row is put between them, so no line is drawn across the gap.
 */
export function timelineRows(
  samples: readonly TelemetrySample[],
  points: ReadonlyArray<Pick<PointResult, 'index' | 'waitP50Ms'>> = [],
): TimelineRow[] {
  const waitOf = new Map(points.map((p) => [p.index, p.waitP50Ms]));
  const out: TimelineRow[] = [];
  let prev: TelemetrySample | undefined;
  for (const s of samples) {
    if (prev && s.t - prev.t > GAP_MS)
      out.push({ t: seconds((prev.t + s.t) / 2), ips: null, cpu: null, proc: null, wait: null, pointWait: null });
    prev = s;
    const row: TimelineRow = {
      t: seconds(s.t),
      ips: s.imagesPerSec === null ? null : Math.round(s.imagesPerSec),
      cpu: s.cpuPerCore.length ? Math.round((s.cpuPerCore.reduce((a, b) => a + b, 0) / s.cpuPerCore.length) * 100) : null,
      proc: s.processCpu == null ? null : Math.min(100, Math.round(s.processCpu * 1000) / 10),
      wait: s.waitMsPerStep == null ? null : Math.round(s.waitMsPerStep * 100) / 100,
      pointWait: s.point === null ? null : (waitOf.get(s.point) ?? null),
    };
    for (const g of s.gpus) row[`gpu${g.index}`] = g.utilPercent;
    out.push(row);
  }
  return out;
}

/** Whether any sample carries the given optional reading (older runs have none). */
export const hasReading = (samples: readonly TelemetrySample[], k: 'processCpu' | 'waitMsPerStep'): boolean =>
  samples.some((s) => s[k] != null);

export interface PointSpan {
  point: number;
  /** seconds, as timelineRows' t */
  x1: number;
  x2: number;
}

/** The stretches of the timeline during which each grid point was measured (consecutive samples of one point). */
export function pointSpans(samples: readonly TelemetrySample[]): PointSpan[] {
  const out: PointSpan[] = [];
  for (const s of samples) {
    const last = out[out.length - 1];
    if (s.point === null) continue;
    if (last && last.point === s.point) last.x2 = seconds(s.t);
    else out.push({ point: s.point, x1: seconds(s.t), x2: seconds(s.t) });
  }
  return out;
}

/** The GPUs seen in samples (indices, sorted). */
export function gpuIndices(samples: readonly TelemetrySample[]): number[] {
  const set = new Set<number>();
  for (const s of samples) for (const g of s.gpus) set.add(g.index);
  return [...set].sort((a, b) => a - b);
}

/** Per-core busy % of the latest sample (bars), or the mean over samples when `mean`. */
export function cpuBars(samples: readonly TelemetrySample[], mean = false): Array<{ core: string; busy: number }> {
  if (!samples.length) return [];
  if (!mean) return samples[samples.length - 1]!.cpuPerCore.map((b, i) => ({ core: String(i), busy: Math.round(b * 100) }));
  const n = Math.max(...samples.map((s) => s.cpuPerCore.length));
  return Array.from({ length: n }, (_, i) => ({
    core: String(i),
    busy: Math.round((samples.reduce((a, s) => a + (s.cpuPerCore[i] ?? 0), 0) / samples.length) * 100),
  }));
}

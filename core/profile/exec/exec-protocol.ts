/**
 * How `beton profile --exec` learns a training command's throughput from its output lines
 * (docs/profiler.md, "The exec protocol"). Pure: no I/O, so the rules are unit-testable.
 */

import { BetonError } from '../../format/errors.js';

/** What one output line says: a cumulative image count, or a rate. */
export type ThroughputEvent = { kind: 'images'; images: number } | { kind: 'ips'; ips: number };

export class ExecError extends BetonError<'BAD_REGEX' | 'SPAWN_FAILED'> {
  override readonly name: string = 'ExecError';
  constructor(code: 'BAD_REGEX' | 'SPAWN_FAILED', message: string) {
    super(code, message);
  }
}

/**
 * Largest count, rate or duration a line may report (10^15: a million images a second for
 * thirty years). Lines come from any program: `{"images": 1e308}` is finite, but its rate
 * over a 250 ms window is Infinity, which no run record may hold. Above it a value is absurd.
 */
export const MAX_REPORTED_VALUE = 1e15;

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_REPORTED_VALUE ? v : null);

/** The keys the protocol reads (throughput and the probe's step lines). */
const REPORT_KEYS = ['images', 'step', 'batch_size', 'images_per_sec', 'wait_ms', 'step_ms'] as const;

/**
 * How many of a JSON line's report keys hold a value that is dropped: present but not a
 * number in 0..MAX_REPORTED_VALUE (a string, NaN written as a string, -1, 1e308). The line's
 * other values still count; the run reports how many were dropped, and goes on.
 */
export function droppedValues(r: Record<string, unknown>): number {
  let n = 0;
  for (const k of REPORT_KEYS) if (k in r && count(r[k]) === null) n++;
  return n;
}

/**
 * A line that is exactly one JSON object (surrounding whitespace allowed):
 * `{"images": N}` (cumulative images since the start; other keys such as "step" are ignored),
 * else `{"step": n, "batch_size": b}` (n completed steps of b images: N = n × b),
 * else `{"images_per_sec": x}`. Anything else — other JSON, log text — is not a report.
 */
export function parseJsonLine(line: string): ThroughputEvent | null {
  const r = jsonObjectOf(line);
  return r ? throughputOf(r) : null;
}

/** The line as one JSON object, or null (any other line). */
export function jsonObjectOf(line: string): Record<string, unknown> | null {
  const s = line.trim();
  if (!s.startsWith('{') || !s.endsWith('}')) return null; // cheap reject before JSON.parse
  let o: unknown;
  try {
    o = JSON.parse(s);
  } catch {
    return null;
  }
  if (o == null || typeof o !== 'object' || Array.isArray(o)) return null;
  return o as Record<string, unknown>;
}

/**
 * One training step's timing (the probe's line, docs/profiler.md "The probe"):
 * `{"step": n, "images": N, "wait_ms": w, "step_ms": s}`, all four numbers ≥ 0, N cumulative.
 */
export interface StepReport {
  step: number;
  images: number;
  waitMs: number;
  stepMs: number;
}

/** A step report when the object has exactly the four step keys as numbers ≥ 0 (others may be present); else null. */
export function stepOf(r: Record<string, unknown>): StepReport | null {
  const step = count(r.step);
  const images = count(r.images);
  const waitMs = count(r.wait_ms);
  const stepMs = count(r.step_ms);
  if (step == null || images == null || waitMs == null || stepMs == null) return null;
  // A wait longer than its step is a clock glitch or a hand-written line: the step is at least its wait.
  return { step, images, waitMs, stepMs: Math.max(stepMs, waitMs) };
}

/** The throughput an object reports (see parseJsonLine), or null. */
export function throughputOf(r: Record<string, unknown>): ThroughputEvent | null {
  const images = count(r.images);
  if (images != null) return { kind: 'images', images };
  const step = count(r.step);
  const batch = count(r.batch_size);
  if (step != null && batch != null) return { kind: 'images', images: step * batch };
  const ips = count(r.images_per_sec);
  return ips != null ? { kind: 'ips', ips } : null;
}

/** Compiles the user's regex; it must have a named group `images` (cumulative) or `ips` (images/s). */
export function compileThroughputRegex(src: string | RegExp): RegExp {
  let re: RegExp;
  try {
    // No 'g'/'y': a stateful lastIndex would make matches depend on the previous line.
    re = typeof src === 'string' ? new RegExp(src) : new RegExp(src.source, src.flags.replace(/[gy]/g, ''));
  } catch (e) {
    throw new ExecError('BAD_REGEX', `--throughput-regex is not a valid regular expression: ${(e as Error).message}`);
  }
  if (!/\(\?<(images|ips)>/.test(re.source)) {
    throw new ExecError(
      'BAD_REGEX',
      `--throughput-regex needs a named group (?<images>…) (cumulative images) or (?<ips>…) (images/s), got /${re.source}/`,
    );
  }
  return re;
}

/** Thousands separators ("1,234", "1_234") are common in logs; anything else non-numeric is no match. */
const number = (s: string | undefined): number | null => {
  if (s == null) return null;
  const t = s.replace(/[,_\s]/g, '');
  if (!/^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) return null;
  return count(Number(t));
};

export function parseRegexLine(line: string, re: RegExp): ThroughputEvent | null {
  const g = re.exec(line)?.groups;
  if (!g) return null;
  const images = number(g.images);
  if (images != null) return { kind: 'images', images };
  const ips = number(g.ips);
  return ips != null ? { kind: 'ips', ips } : null;
}

/**
 * Turns timed throughput events into images/s per sample window, and a total.
 *
 * Reports rarely line up with windows (a log line every 10 steps may come every 2 s, windows are
 * 250 ms), so a window that holds a count report gets the rate since the report before the
 * window; a window without a report keeps the last rate while the silence is no longer than
 * twice the usual gap between reports, then reads 0 (the run stopped producing images: eval,
 * checkpointing, a stall). Before the rate is known (one count report is only a baseline) it is null.
 * A count that goes down is a counter reset (e.g. per-epoch counts): counting continues from it.
 */
export class ThroughputMeter {
  private offset = 0;
  private lastRaw: number | null = null;
  /** Count reports (t ms, cumulative total), oldest first; only the recent ones are kept. */
  private reports: Array<{ t: number; total: number }> = [];
  private ipsInWindow: number[] = [];
  private lastIps: { t: number; ips: number } | null = null;
  private ipsImages = 0;
  private lastEventT: number | null = null;
  private lastGapMs: number | null = null;
  private windowEnd = 0;
  private value: number | null = null;
  /** The first count report (the window keeps only recent ones): the start of the steady rate. */
  private reportsTotalFirst: { t: number; total: number } | null = null;
  private ipsSum = 0;
  private ipsCount = 0;

  record(e: ThroughputEvent, tMs: number): void {
    if (this.lastEventT != null) this.lastGapMs = tMs - this.lastEventT;
    this.lastEventT = tMs;
    if (e.kind === 'images') {
      if (this.lastRaw != null && e.images < this.lastRaw) this.offset += this.lastRaw;
      this.lastRaw = e.images;
      this.reports.push({ t: tMs, total: this.offset + e.images });
      this.reportsTotalFirst ??= this.reports[0]!;
      if (this.reports.length > 64) this.reports.splice(0, this.reports.length - 64);
    } else {
      // Integrate rates for a total when the command reports no counts.
      if (this.lastIps) this.ipsImages += ((this.lastIps.ips + e.ips) / 2) * ((tMs - this.lastIps.t) / 1000);
      this.lastIps = { t: tMs, ips: e.ips };
      this.ipsInWindow.push(e.ips);
      this.ipsSum += e.ips;
      this.ipsCount++;
    }
  }

  /** Images/s for the window ending at `nowMs` (and starting where the previous call ended). */
  window(nowMs: number): number | null {
    const start = this.windowEnd;
    this.windowEnd = nowMs;
    const inWindow = this.reports.filter((r) => r.t > start && r.t <= nowMs);
    const before = this.reports.filter((r) => r.t <= start);
    const latest = inWindow[inWindow.length - 1];
    const ref = before[before.length - 1] ?? inWindow[0];
    if (latest && ref && latest.t > ref.t) {
      this.value = ((latest.total - ref.total) / (latest.t - ref.t)) * 1000;
    } else if (this.ipsInWindow.length > 0) {
      this.value = this.ipsInWindow.reduce((a, b) => a + b, 0) / this.ipsInWindow.length;
    } else if (this.value != null && this.lastEventT != null && inWindow.length === 0) {
      const hold = Math.max(2 * (this.lastGapMs ?? 1000), 2 * (nowMs - start));
      if (nowMs - this.lastEventT > hold) this.value = 0;
    }
    this.ipsInWindow = [];
    return this.value;
  }

  /**
   * Images/s from the first count report to the last (start-up before the first report left
   * out), else the mean of the reported rates; null when neither is known.
   */
  get steadyImagesPerSec(): number | null {
    const first = this.reportsTotalFirst;
    const last = this.reports[this.reports.length - 1];
    if (first && last && last.t > first.t) return ((last.total - first.total) / (last.t - first.t)) * 1000;
    return this.ipsCount > 0 ? this.ipsSum / this.ipsCount : null;
  }

  /** Images counted so far (from counts when any were reported, else integrated from rates). */
  get imagesTotal(): number {
    const last = this.reports[this.reports.length - 1];
    return last ? last.total : Math.round(this.ipsImages);
  }
}

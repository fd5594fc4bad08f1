import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { WriteProgress } from './dataset-writer.js';

/**
 * Progress of one shard of a sharded build, as a small JSON file beside the shard
 * (`<shard>.beton.progress.json`). Shards run on other machines (Slurm tasks, K8s pods);
 * a shared folder is the one thing they and `beton build --status DIR` all see. Written
 * atomically (temp file + rename), so a reader never sees half a file.
 */
export interface ShardProgress {
  version: 1;
  shard: { index: number; count: number };
  output: string;
  state: 'running' | 'done' | 'failed';
  /** Source items handled (written + skipped), of `total`. */
  done: number;
  total: number | null;
  written: number;
  skipped: number;
  samplesPerSec: number;
  etaMs: number | null;
  startedAt: string;
  updatedAt: string;
  host: string;
  pid: number;
  /** Why the shard failed (state 'failed'). */
  error?: string;
}

export const PROGRESS_SUFFIX = '.progress.json';
export const progressPathFor = (output: string): string => output + PROGRESS_SUFFIX;

/** Zero-padded, so a shell glob or `ls` lists shards in merge order. */
export function shardFileName(index: number, count: number): string {
  const pad = (n: number): string => String(n).padStart(5, '0');
  return `shard-${pad(index)}-of-${pad(count)}.beton`;
}

export function shardPaths(dir: string, count: number): string[] {
  return Array.from({ length: count }, (_, k) => join(dir, shardFileName(k, count)));
}

/** Writes one shard's progress file: at most once a second while running, always at the end. */
export class ShardProgressFile {
  private last = 0;
  private readonly startedAt = new Date().toISOString();
  private state: Omit<ShardProgress, 'updatedAt' | 'state'>;

  constructor(
    readonly path: string,
    shard: { index: number; count: number },
    output: string,
    private readonly minIntervalMs = 1000,
  ) {
    this.state = {
      version: 1,
      shard,
      output,
      done: 0,
      total: null,
      written: 0,
      skipped: 0,
      samplesPerSec: 0,
      etaMs: null,
      startedAt: this.startedAt,
      host: hostname(),
      pid: process.pid,
    };
    this.write('running');
  }

  update(p: WriteProgress): void {
    this.state = {
      ...this.state,
      done: p.done,
      total: p.total,
      written: p.written,
      skipped: p.skipped,
      samplesPerSec: p.samplesPerSec,
      etaMs: p.etaMs,
    };
    if (Date.now() - this.last >= this.minIntervalMs) this.write('running');
  }

  finish(r: { numSamples: number; skipped: readonly unknown[]; samplesPerSec: number }): void {
    const done = r.numSamples + r.skipped.length;
    this.state = {
      ...this.state,
      done,
      total: done,
      written: r.numSamples,
      skipped: r.skipped.length,
      samplesPerSec: r.samplesPerSec,
      etaMs: 0,
    };
    this.write('done');
  }

  fail(e: unknown): void {
    this.state = { ...this.state, error: e instanceof Error ? e.message : String(e), etaMs: null };
    this.write('failed');
  }

  private write(state: ShardProgress['state']): void {
    this.last = Date.now();
    const doc: ShardProgress = { ...this.state, state, updatedAt: new Date().toISOString() };
    const tmp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n');
    renameSync(tmp, this.path);
  }
}

export type ShardState = ShardProgress['state'] | 'pending';

export interface ShardStatus {
  index: number;
  state: ShardState;
  /** A running shard whose file has not changed for `staleAfterMs`: its process probably died. */
  stale: boolean;
  progress: ShardProgress | null;
}

export interface ShardsStatus {
  dir: string;
  count: number;
  shards: ShardStatus[];
  done: number;
  running: number;
  pending: number;
  failed: number;
  /** Source items handled over all shards, and the total where every shard knows its own. */
  items: number;
  totalItems: number | null;
  samplesPerSec: number;
  etaMs: number | null;
  /** Progress files in the folder that belong to another shard count (an older run). */
  ignored: string[];
}

function parseProgress(text: string): ShardProgress | null {
  try {
    const p = JSON.parse(text) as Partial<ShardProgress>;
    const ok =
      p.version === 1 &&
      typeof p.shard?.index === 'number' &&
      typeof p.shard.count === 'number' &&
      typeof p.state === 'string' &&
      typeof p.done === 'number';
    return ok ? (p as ShardProgress) : null;
  } catch {
    return null;
  }
}

/**
 * Reads every `*.progress.json` in `dir`. The shard count is `count` if given, else that
 * of the most recently updated file; shards without a file are pending.
 */
export function readShardsStatus(dir: string, opts: { count?: number; now?: number; staleAfterMs?: number } = {}): ShardsStatus {
  const now = opts.now ?? Date.now();
  const staleAfterMs = opts.staleAfterMs ?? 5 * 60_000;
  const found: Array<{ file: string; p: ShardProgress }> = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(PROGRESS_SUFFIX)) continue;
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue; // removed between readdir and read
    }
    const p = parseProgress(text);
    if (p) found.push({ file: name, p });
  }
  const latest = [...found].sort((a, b) => b.p.updatedAt.localeCompare(a.p.updatedAt))[0];
  const count = opts.count ?? latest?.p.shard.count ?? 0;
  const byIndex = new Map<number, ShardProgress>();
  const ignored: string[] = [];
  for (const { file, p } of found) {
    if (p.shard.count !== count || p.shard.index >= count) ignored.push(file);
    else {
      const prev = byIndex.get(p.shard.index);
      if (!prev || p.updatedAt > prev.updatedAt) byIndex.set(p.shard.index, p);
    }
  }
  const shards: ShardStatus[] = Array.from({ length: count }, (_, index) => {
    const progress = byIndex.get(index) ?? null;
    const state: ShardState = progress?.state ?? 'pending';
    const stale = state === 'running' && progress !== null && now - Date.parse(progress.updatedAt) > staleAfterMs;
    return { index, state, stale, progress };
  });
  const n = (s: ShardState): number => shards.filter((x) => x.state === s).length;
  const items = shards.reduce((s, x) => s + (x.progress?.done ?? 0), 0);
  const totals = shards.map((x) => x.progress?.total ?? null);
  const totalItems = totals.every((t): t is number => t !== null) ? totals.reduce((a, b) => a + b, 0) : null;
  const running = shards.filter((x) => x.state === 'running' && !x.stale);
  const samplesPerSec = running.reduce((s, x) => s + (x.progress?.samplesPerSec ?? 0), 0);
  // The slowest running shard decides when the running ones finish; pending ones are unknown.
  const etaMs =
    n('pending') === 0 && running.length > 0
      ? running.reduce((m, x) => Math.max(m, x.progress?.etaMs ?? Infinity), -Infinity)
      : n('running') === 0 && n('pending') === 0
        ? 0
        : null;
  return {
    dir,
    count,
    shards,
    done: n('done'),
    running: n('running'),
    pending: n('pending'),
    failed: n('failed'),
    items,
    totalItems,
    samplesPerSec,
    etaMs: etaMs === Infinity ? null : etaMs,
    ignored,
  };
}

import type { BuildReport } from '../api/build-report.js';
import type { DatasetInfo, MachineInfo, PointResult, ProfileRun, RunFailure, TelemetrySample, Verdict } from '../api/profile-model.js';
import type { BuildRecord, Change, CompareRow, RunComparison, RunStatus, RunSummary, StoredRun } from '../api/runs-model.js';
import { listBuilds, recordBuild } from './builds-store.js';
import { recordDataset, recordMachine } from './catalog.js';
import { openConnection, type OpenOptions } from './connection.js';
import { RunsDbError } from './errors.js';
import { defaultDbPath } from './location.js';
import { compare, getRun, getSummary, listRuns } from './run-reads.js';
import { addPoint, addSamples, deleteRun, finishRun, heartbeat, type RunEnd, type RunStart, saveRun, startRun } from './run-writes.js';
import type { Store } from './store.js';

// The runs database as its users see it: one object, every method synchronous. Opening the
// file (pragmas, migrations, the native binding) is connection.ts; what is recorded and read
// back, in SQL, is one store per concept: catalog.ts (machines, datasets), builds-store.ts,
// run-writes.ts and run-reads.ts (profile runs); comparing two runs is compare.ts.

// The shapes it answers are the contract's (core/api/runs-model.ts), so the app's `runs.get`
// and `runs.compare` are typed by what this module returns.
export type { BuildRecord, Change, CompareRow, RunComparison, RunStatus, RunSummary, StoredRun };
export type { RunEnd, RunStart };

export { defaultDbPath };

/**
 * The runs database: machines, datasets, builds, profile runs with their points and
 * telemetry samples, in one SQLite file (better-sqlite3, WAL mode). Safe to share between
 * processes — the app and the CLI may have it open at once: writers queue for up to
 * `busyTimeoutMs` instead of failing. Every method is synchronous. Schema: docs/runs-db.md.
 */
export class RunsDb {
  private readonly store: Store;
  readonly path: string;

  private constructor(store: Store) {
    this.store = store;
    this.path = store.path;
  }

  /** Opens (creating the file and its folder if needed) and migrates the database. Default path: defaultDbPath(). */
  static open(path?: string, opts: OpenOptions = {}): RunsDb {
    if (path !== undefined && (typeof path !== 'string' || path.length === 0))
      throw new RunsDbError('INVALID_INPUT', 'database path must be a non-empty string');
    const busy = opts.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busy) || busy < 0)
      throw new RunsDbError('INVALID_INPUT', `busyTimeoutMs must be a non-negative integer, got ${String(busy)}`);
    const file = path ?? defaultDbPath();
    const db = openConnection(file, { ...opts, busyTimeoutMs: busy });
    return new RunsDb({ db, path: file });
  }

  /** PRAGMA user_version: the number of migrations applied. */
  get schemaVersion(): number {
    return Number(this.store.db.pragma('user_version', { simple: true }));
  }

  /** PRAGMA journal_mode ('wal' for files, 'memory' for ':memory:'). */
  get journalMode(): string {
    return String(this.store.db.pragma('journal_mode', { simple: true }));
  }

  /** PRAGMA integrity_check: 'ok', or the problems found, one a line. */
  integrityCheck(): string {
    const rows = this.store.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join('\n');
  }

  close(): void {
    if (this.store.db.open) this.store.db.close();
  }

  /** Records a machine (deduplicated: the same description gives the same id). */
  recordMachine(m: MachineInfo): number {
    return recordMachine(this.store, m);
  }

  /** Records a dataset (deduplicated by path + header sha256; size, count and schema are refreshed). */
  recordDataset(d: DatasetInfo): number {
    return recordDataset(this.store, d);
  }

  /** Records a finished build: its config (as given to buildDataset) and report. */
  recordBuild(datasetId: number | null, config: object, report: BuildReport): number {
    return recordBuild(this.store, datasetId, config, report);
  }

  /** Builds, newest first. */
  listBuilds(opts: { limit?: number } = {}): BuildRecord[] {
    return listBuilds(this.store, opts);
  }

  /** Records the start of a run (status 'running'); returns its id for addPoint/addSamples/finishRun. */
  startRun(run: RunStart): number {
    return startRun(this.store, run);
  }

  /** Adds one measured grid point to a run. Point indexes are unique within a run. */
  addPoint(runId: number, p: PointResult): void {
    addPoint(this.store, runId, p);
  }

  /** Appends telemetry samples to a run, all in one transaction. Returns how many were added. */
  addSamples(runId: number, samples: readonly TelemetrySample[]): number {
    return addSamples(this.store, runId, samples);
  }

  /**
   * Stamps a running run's heartbeat (liveness.ts): a 'running' run without one for
   * STALE_RUN_MS reads as interrupted. No-op once the run is finished.
   */
  heartbeat(runId: number, at?: string): void {
    heartbeat(this.store, runId, at);
  }

  /** Marks a run finished with its final status and verdict (and, failed, why). */
  finishRun(
    runId: number,
    status: ProfileRun['status'],
    verdict: Verdict | null,
    finishedAt?: string,
    failure: RunFailure | null = null,
    end: RunEnd = {},
  ): void {
    finishRun(this.store, runId, status, verdict, finishedAt, failure, end);
  }

  /** Stores a complete run (machine, dataset, points, samples, verdict) in one transaction; returns its id. `run.id` is ignored. */
  saveRun(run: ProfileRun): number {
    return saveRun(this.store, run);
  }

  /** Runs, newest first (by startedAt), with their best images/s and verdict. */
  listRuns(opts: { limit?: number } = {}): RunSummary[] {
    return listRuns(this.store, opts);
  }

  /** One run's summary, or null. */
  getSummary(id: number): RunSummary | null {
    return getSummary(this.store, id);
  }

  /** A whole run, reassembled (points by index, samples in insertion order), or null if there is none with this id. */
  getRun(id: number): StoredRun | null {
    return getRun(this.store, id);
  }

  /** Deletes a run with its points and samples; false if there was none. */
  deleteRun(id: number): boolean {
    return deleteRun(this.store, id);
  }

  /** Compares two runs point by point (matching workers, batch size, order and cache). Throws NOT_FOUND if either is missing. */
  compare(a: number, b: number): RunComparison {
    return compare(this.store, a, b);
  }
}

/**
 * The runs database as `beton runs` and the app's Runs screen read it: one answer per
 * question, the same for both (a missing run is NOT_FOUND naming the database). Types only
 * from core/runs here, so a command that does not read runs does not load SQLite.
 */
import type { BuildRecord, RunComparison, RunSummary, StoredRun } from '../api/runs-model.js';
import { RunsDbError } from '../runs/errors.js';
import { plotCompare, plotRun } from '../runs/plot.js';
import type { RunsDb } from '../runs/runs-db.js';
import type { ProfileRun } from '../api/profile-model.js';
import type { RunRecorder } from './profile-run.js';

// What a front end names beside the queries: the default database, and the error whose code it reports.
export { defaultDbPath } from '../runs/location.js';
export { RunsDbError } from '../runs/errors.js';

/**
 * A query's failure as the front ends report it: SQLite's damage codes become CORRUPT naming
 * the file; `sqliteCode` is SQLite's own code when the error is SQLite's. Loaded when needed:
 * a command that does not read runs must not need the SQLite addon.
 */
export async function runsQueryError(e: unknown, path: string): Promise<{ error: unknown; sqliteCode: string | null }> {
  const { corruptionError, sqliteErrorCode } = await import('../runs/connection.js');
  return { error: corruptionError(e, path), sqliteCode: sqliteErrorCode(e) };
}

/** Opens a runs database checked for damage (CORRUPT at once, not in some queries later). */
export async function openRunsDb(path?: string): Promise<RunsDb> {
  const { RunsDb: Db } = await import('../runs/runs-db.js');
  return Db.open(path, { check: true });
}

/**
 * A recorder that opens the database for each write: a sweep of minutes keeps no connection
 * open (another process may want the file), yet records the run as it goes (run-writer.ts).
 */
export async function savingTo(path?: string): Promise<RunRecorder> {
  const { RunsDb: Db } = await import('../runs/runs-db.js');
  const withDb = <T>(fn: (db: RunsDb) => T): T => {
    const db = Db.open(path);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    saveRun: (run: ProfileRun) => withDb((db) => db.saveRun(run)),
    startRun: (run) => withDb((db) => db.startRun(run)),
    addPoint: (id, p) => withDb((db) => db.addPoint(id, p)),
    addSamples: (id, samples) => withDb((db) => db.addSamples(id, samples)),
    heartbeat: (id, at) => withDb((db) => db.heartbeat(id, at)),
    finishRun: (id, status, verdict, finishedAt, failure, end) =>
      withDb((db) => db.finishRun(id, status, verdict, finishedAt, failure, end)),
  };
}

export function listRuns(db: RunsDb, limit?: number): RunSummary[] {
  return db.listRuns({ limit });
}

export function listBuilds(db: RunsDb, limit?: number): BuildRecord[] {
  return db.listBuilds({ limit });
}

/** A whole run; NOT_FOUND when there is none with this id. */
export function getRun(db: RunsDb, id: number): StoredRun {
  const run = db.getRun(id);
  if (!run) throw new RunsDbError('NOT_FOUND', `run ${id} not found in ${db.path}`);
  return run;
}

/** B against A per matching grid point; NOT_FOUND naming the runs that are missing. */
export function compareRuns(db: RunsDb, a: number, b: number): RunComparison {
  return db.compare(a, b);
}

/** Deletes a run with its points and samples; false when there was none. */
export function deleteRun(db: RunsDb, id: number): boolean {
  return db.deleteRun(id);
}

/** SVG charts of one run, or of A against B with two ids. */
export function plotRuns(db: RunsDb, ids: readonly [number] | readonly [number, number]): string {
  return ids.length === 2 ? plotCompare(getRun(db, ids[0]), getRun(db, ids[1])) : plotRun(getRun(db, ids[0]));
}

/**
 * The service's one open runs database. It always reads runs, so it loads SQLite at once
 * (runs-queries.ts keeps SQLite out of the commands that do not).
 */
import { RunsDb } from '../runs/runs-db.js';

/** Opened checked: a damaged file answers CORRUPT in every call, not in some. */
export function openCheckedRunsDb(path?: string): RunsDb {
  return RunsDb.open(path, { check: true });
}

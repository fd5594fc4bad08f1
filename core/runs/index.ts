/**
 * The runs database (SQLite via better-sqlite3) and its SVG charts, as users need them.
 * Schema: docs/runs-db.md. Migrations and the native binding's lookup are internal.
 */
export {
  RunsDb,
  type BuildRecord,
  type CompareRow,
  type RunComparison,
  type RunStart,
  type RunStatus,
  type RunSummary,
  type StoredRun,
} from './runs-db.js';
export { type OpenOptions } from './connection.js';
export { defaultDbPath } from './location.js';
export { RunsDbError, type RunsDbErrorCode } from './errors.js';
export { plotRun, plotCompare, type PlottableRun } from './plot.js';

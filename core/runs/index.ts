/** The runs database (SQLite via better-sqlite3) and its SVG charts. Schema: docs/runs-db.md. */
export {
  RunsDb,
  SCHEMA_VERSION,
  sqliteErrorCode,
  type BuildRecord,
  type CompareRow,
  type OpenOptions,
  type RunComparison,
  type RunStart,
  type RunStatus,
  type RunSummary,
  type StoredRun,
} from './runs-db.js';
export { defaultDbPath } from './location.js';
export { RunsDbError, type RunsDbErrorCode } from './errors.js';
export { plotRun, plotCompare, type PlottableRun } from './plot.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export { electronBindingPath, sqliteBindingError, sqliteNativeBinding, type SqliteRuntime } from './sqlite-binding.js';

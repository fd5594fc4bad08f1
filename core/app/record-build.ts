import type { BuildConfig } from '../api/build-config.js';
import type { BuildReport } from '../api/build-report.js';
import type { RunsDb } from '../runs/runs-db.js';

/**
 * Records a finished build in the runs database (`beton runs builds`, the app's Runs and
 * Build screens): the dataset it wrote, its config and report. Returns null when recorded,
 * else one line saying why not: the build's file is written, so a database problem never
 * fails it.
 */
export type BuildRecorder = (config: BuildConfig, report: BuildReport) => Promise<string | null>;

async function record(db: RunsDb, config: BuildConfig, report: BuildReport): Promise<number> {
  const { datasetInfo } = await import('../profile/sweep/sweep.js');
  return db.recordBuild(db.recordDataset(datasetInfo(report.path)), config, report);
}

const note = (e: unknown): string => `not recorded in the runs database: ${e instanceof Error ? e.message : String(e)}`;

/** Into an open database (the service keeps one); `then` runs after a successful record (the service tells its clients). */
export function recordInto(db: () => RunsDb, then?: () => void): BuildRecorder {
  return async (config, report) => {
    try {
      await record(db(), config, report);
      then?.();
      return null;
    } catch (e) {
      return note(e);
    }
  };
}

/** Into the database at `path` (default: `$BETON_DB` or the per-user file), opened and closed around the record: the CLI. */
export function recordAt(path: string | undefined): BuildRecorder {
  return async (config, report) => {
    try {
      const { RunsDb } = await import('../runs/runs-db.js');
      const db = RunsDb.open(path);
      try {
        await record(db, config, report);
      } finally {
        db.close();
      }
      return null;
    } catch (e) {
      return note(e);
    }
  };
}

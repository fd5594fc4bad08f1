import type { BuildConfig } from '../api/build-config.js';
import type { BuildReport } from '../api/build-report.js';
import type { RunsDb } from '../runs/runs-db.js';

/**
 * Records a finished build in the runs database (`beton runs builds`, the app's Runs screen):
 * the dataset it wrote and the config and report. The one way both the CLI's `beton build`
 * and the app's builds (core/services) do it. Returns the build's id.
 */
export async function recordBuild(db: RunsDb, config: BuildConfig, report: BuildReport): Promise<number> {
  const { datasetInfo } = await import('../profile/sweep.js');
  return db.recordBuild(db.recordDataset(datasetInfo(report.path)), config, report);
}

/**
 * The CLI's form: opens the database at `path` (default: `$BETON_DB` or the per-user file),
 * records, closes. A database problem never fails the build, whose file is written: it is
 * returned as one line to show.
 */
export async function recordBuildAt(path: string | undefined, config: BuildConfig, report: BuildReport): Promise<string | null> {
  try {
    const { RunsDb } = await import('../runs/runs-db.js');
    const db = RunsDb.open(path);
    try {
      await recordBuild(db, config, report);
    } finally {
      db.close();
    }
    return null;
  } catch (e) {
    return `not recorded in the runs database: ${e instanceof Error ? e.message : String(e)}`;
  }
}

import type { BuildReport } from '../api/build-report.js';
import type { BuildRecord } from '../api/runs-model.js';
import { RunsDbError } from './errors.js';
import { parseJson, type Store, writeTransaction } from './store.js';
import { BuildSchema, check, ListOptionsSchema, toJson } from './validate.js';

// The builds recorded in the runs database: a build's config and report, and its dataset.

interface BuildRow {
  id: number;
  dataset_id: number | null;
  dataset_path: string | null;
  config: string;
  report: string;
  created_at: string;
}

/** Records a finished build: its config (as given to buildDataset) and report. */
export function recordBuild(s: Store, datasetId: number | null, config: object, report: BuildReport): number {
  const v = check(BuildSchema, { datasetId, config, report }, 'build');
  return writeTransaction(s, () => {
    if (v.datasetId !== null && !s.db.prepare('SELECT 1 FROM datasets WHERE id = ?').get(v.datasetId)) {
      throw new RunsDbError('NOT_FOUND', `dataset ${v.datasetId} not found in ${s.path}`);
    }
    const r = s.db
      .prepare('INSERT INTO builds (dataset_id, config, report, created_at) VALUES (?, ?, ?, ?)')
      .run(v.datasetId, toJson(v.config, 'build config'), toJson(report, 'build report'), new Date().toISOString());
    return Number(r.lastInsertRowid);
  });
}

/** Builds, newest first. */
export function listBuilds(s: Store, opts: { limit?: number } = {}): BuildRecord[] {
  const { limit } = check(ListOptionsSchema, opts, 'listBuilds options');
  const rows = s.db
    .prepare<unknown[], BuildRow>(
      `SELECT b.id, b.dataset_id, d.path AS dataset_path, b.config, b.report, b.created_at
       FROM builds b LEFT JOIN datasets d ON d.id = b.dataset_id ORDER BY b.created_at DESC, b.id DESC LIMIT ?`,
    )
    .all(limit ?? -1);
  return rows.map((r) => ({
    id: r.id,
    datasetId: r.dataset_id,
    datasetPath: r.dataset_path,
    config: parseJson<Record<string, unknown>>(r.config, `config of build ${r.id}`),
    report: parseJson<BuildReport>(r.report, `report of build ${r.id}`),
    createdAt: r.created_at,
  }));
}

/**
 * The builds the app lists (`builds.list`): this host's own since it started, then the builds
 * recorded in the runs database that it does not hold (a server started again keeps no memory,
 * so without them the Export screen's "Include its build" was off for a file just built).
 * A recorded build is listed as finished ("ok") under the id `db-<id>`; only the latest
 * RECORDED_BUILDS, newest first, and only those whose config still reads as a build config.
 */
import type { BuildHistoryEntry } from '../api/contract.js';
import type { BuildRecord } from '../api/runs-model.js';

export const RECORDED_BUILDS = 20;

export function buildList(own: BuildHistoryEntry[], recorded: () => BuildRecord[]): BuildHistoryEntry[] {
  let stored: BuildRecord[];
  try {
    stored = recorded();
  } catch {
    // A damaged or locked runs database: this host's own builds still list.
    return own;
  }
  const extra: BuildHistoryEntry[] = [];
  for (const b of stored) {
    const config = b.config as BuildHistoryEntry['config'];
    if (typeof config?.source !== 'object' || typeof config.output !== 'string') continue;
    const at = Date.parse(b.createdAt);
    // A build this host ran is both in memory and recorded: the memory's entry wins (it has the job id).
    if (own.some((e) => e.report?.path === b.report.path && e.finishedAt !== null && Math.abs(e.finishedAt - at) < 60_000)) continue;
    extra.push({
      jobId: `db-${b.id}`,
      config,
      startedAt: at - Math.round(b.report.elapsedMs),
      finishedAt: at,
      status: 'ok',
      report: b.report,
      message: null,
    });
  }
  return [...own, ...extra];
}

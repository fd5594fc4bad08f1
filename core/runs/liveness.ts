/**
 * Whether a run is still being recorded. A run is stored with status 'running' at its start
 * and points and samples are added as they are measured; while it runs, its recorder stamps a
 * heartbeat every few seconds (stored in `finished_at` while the status is 'running': the
 * column is otherwise empty until the end, and no migration is needed). A 'running' run whose
 * heartbeat is older than STALE_RUN_MS has no live process behind it — the CLI was killed, the
 * server went away, the machine rebooted — and reads as 'interrupted', with what it recorded.
 * A run stopped by a signal (SIGINT/SIGTERM/SIGHUP to `beton profile`) is stored as
 * 'cancelled' with failure code INTERRUPTED, and reads as 'interrupted' too.
 */
import type { RunStatus } from '../api/runs-model.js';

/** A recorder stamps at least every HEARTBEAT_MS; three missed stamps and more make a run interrupted. */
export const HEARTBEAT_MS = 2_000;
export const STALE_RUN_MS = 15_000;

/** The failure code of a run that a signal stopped (it kept what it had measured). */
export const INTERRUPTED_CODE = 'INTERRUPTED';

/** The status a reader sees, and the finishedAt it shows (a heartbeat is not a finish time). */
export function liveStatus(
  stored: RunStatus,
  failureCode: string | null | undefined,
  finishedAtColumn: string | null,
  startedAt: string,
  now: number = Date.now(),
): { status: RunStatus; finishedAt: string | null } {
  if (stored === 'cancelled' && failureCode === INTERRUPTED_CODE) return { status: 'interrupted', finishedAt: finishedAtColumn };
  if (stored !== 'running') return { status: stored, finishedAt: finishedAtColumn };
  const beat = Date.parse(finishedAtColumn ?? startedAt);
  // A run recorded before heartbeats existed has none: its start stands in, so it too ends up interrupted.
  if (Number.isFinite(beat) && now - beat > STALE_RUN_MS) return { status: 'interrupted', finishedAt: finishedAtColumn ?? null };
  return { status: 'running', finishedAt: null };
}

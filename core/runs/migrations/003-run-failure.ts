/**
 * Migration 003: a failed run keeps why it failed (RunFailure as JSON: the message, and for
 * a training command its exit code, signal and last lines of stderr), so `beton runs show`
 * and the app can say more than "failed". NULL for runs that did not fail and runs recorded
 * before this.
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'run-failure';

export const sql = `
ALTER TABLE profile_runs ADD COLUMN failure TEXT;  -- JSON: RunFailure, or NULL
`;

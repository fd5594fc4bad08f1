/**
 * Migration 007: each run keeps its answer (issue 27: core/profile/verdict/answer.ts, the one verdict
 * every surface shows unchanged) and the engines that failed while the others went on, as
 * JSON. Runs recorded before have neither (NULL: read back as absent).
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'run-answer';

export const sql = `
ALTER TABLE profile_runs ADD COLUMN answer TEXT;           -- JSON: ProfileAnswer (core/api/profile-answer.ts)
ALTER TABLE profile_runs ADD COLUMN engine_failures TEXT;  -- JSON: EngineFailure[]
`;

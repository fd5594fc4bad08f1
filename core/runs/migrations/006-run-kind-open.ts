/**
 * Migration 006: `profile_runs.kind` loses its SQL list (CHECK kind IN ('sweep', 'exec')).
 * The kinds are RUN_KINDS in core/api/constants.ts, checked by the code that stores a run
 * (core/runs/validate.ts); with the list in SQL, every new kind of run needed a table
 * rebuild. This is that rebuild, done once, by SQLite's procedure for schema changes ALTER
 * TABLE cannot make (sqlite.org/lang_altertable.html §7): the runner turns foreign keys off
 * around it (`foreignKeysOff`), so dropping the old table does not cascade into points and
 * samples, and checks them (PRAGMA foreign_key_check) before committing.
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'run-kind-open';

export const foreignKeysOff = true;

export const sql = `
CREATE TABLE profile_runs_006 (
  id             INTEGER PRIMARY KEY,
  kind           TEXT    NOT NULL,            -- RUN_KINDS (core/api/constants.ts)
  plan           TEXT    NOT NULL,            -- JSON: the kind's plan
  machine_id     INTEGER NOT NULL REFERENCES machines(id),
  dataset_id     INTEGER REFERENCES datasets(id),
  status         TEXT    NOT NULL CHECK (status IN ('running', 'ok', 'cancelled', 'failed')),
  verdict        TEXT,                        -- JSON: Verdict, or NULL
  verdict_kind   TEXT,                        -- verdict.kind, for listings
  started_at     TEXT    NOT NULL,
  finished_at    TEXT,
  dataset_sha256 TEXT,                        -- DatasetInfo.contentSha256 at the run, or NULL (002)
  failure        TEXT                         -- JSON: RunFailure, or NULL (003)
);
INSERT INTO profile_runs_006 (id, kind, plan, machine_id, dataset_id, status, verdict, verdict_kind, started_at, finished_at, dataset_sha256, failure)
  SELECT id, kind, plan, machine_id, dataset_id, status, verdict, verdict_kind, started_at, finished_at, dataset_sha256, failure FROM profile_runs;
DROP TABLE profile_runs;
ALTER TABLE profile_runs_006 RENAME TO profile_runs;
CREATE INDEX profile_runs_started ON profile_runs (started_at);
`;

/**
 * Migration 001: the first schema of the runs database.
 *
 * RELEASED: never edit this file. Change the schema with a new numbered migration
 * (002-..., listed in ./index.ts) that alters what this one created.
 */
export const name = 'initial';

export const sql = `
CREATE TABLE machines (
  id          INTEGER PRIMARY KEY,
  fingerprint TEXT    NOT NULL UNIQUE,      -- sha256 of the canonical JSON of every column below
  hostname    TEXT    NOT NULL,
  cpu_model   TEXT    NOT NULL,
  cores       INTEGER NOT NULL,
  ram_bytes   INTEGER NOT NULL,
  gpus        TEXT    NOT NULL,             -- JSON: GpuInfo[]
  os          TEXT    NOT NULL,
  node        TEXT    NOT NULL,
  first_seen  TEXT    NOT NULL
);

CREATE TABLE datasets (
  id            INTEGER PRIMARY KEY,
  path          TEXT    NOT NULL,
  header_sha256 TEXT    NOT NULL,
  size_bytes    INTEGER NOT NULL,
  num_samples   INTEGER NOT NULL,
  schema        TEXT    NOT NULL,           -- JSON: [{ name, type, typeId }]
  first_seen    TEXT    NOT NULL,
  last_seen     TEXT    NOT NULL,
  UNIQUE (path, header_sha256)
);

CREATE TABLE builds (
  id         INTEGER PRIMARY KEY,
  dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
  config     TEXT    NOT NULL,              -- JSON: the build config
  report     TEXT    NOT NULL,              -- JSON: BuildReport
  created_at TEXT    NOT NULL
);
CREATE INDEX builds_created ON builds (created_at);

CREATE TABLE profile_runs (
  id           INTEGER PRIMARY KEY,
  kind         TEXT    NOT NULL CHECK (kind IN ('sweep', 'exec')),
  plan         TEXT    NOT NULL,            -- JSON: ProfilePlan | ExecPlan
  machine_id   INTEGER NOT NULL REFERENCES machines(id),
  dataset_id   INTEGER REFERENCES datasets(id),
  status       TEXT    NOT NULL CHECK (status IN ('running', 'ok', 'cancelled', 'failed')),
  verdict      TEXT,                        -- JSON: Verdict, or NULL
  verdict_kind TEXT,                        -- verdict.kind, for listings
  started_at   TEXT    NOT NULL,
  finished_at  TEXT
);
CREATE INDEX profile_runs_started ON profile_runs (started_at);

CREATE TABLE points (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES profile_runs(id) ON DELETE CASCADE,
  idx                 INTEGER NOT NULL,
  config              TEXT    NOT NULL,     -- JSON: PointConfig
  images_per_sec      REAL    NOT NULL,
  batches_per_sec     REAL    NOT NULL,
  wait_p50_ms         REAL    NOT NULL,
  wait_p95_ms         REAL    NOT NULL,
  rss_peak            INTEGER NOT NULL,
  disk_read_bytes     INTEGER NOT NULL,
  page_cache_resident REAL,
  gpu_util_mean       REAL,
  result              TEXT    NOT NULL,     -- JSON: the whole PointResult
  UNIQUE (run_id, idx)
);

CREATE TABLE samples (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES profile_runs(id) ON DELETE CASCADE,
  t              REAL    NOT NULL,          -- ms since the run started
  point          INTEGER,
  images_per_sec REAL,
  rss            INTEGER NOT NULL,
  disk_read      INTEGER NOT NULL,
  cpu            TEXT    NOT NULL,          -- JSON: busy fraction per logical CPU
  gpus           TEXT    NOT NULL           -- JSON: GpuReading[]
);
CREATE INDEX samples_run ON samples (run_id, id);
`;

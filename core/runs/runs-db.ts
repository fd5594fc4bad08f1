import { createHash } from 'node:crypto';
import type { BuildReport } from '../api/build-report.js';
import type { ProfileAnswer } from '../api/profile-answer.js';
import type {
  EngineFailure,
  DatasetInfo,
  MachineInfo,
  PointResult,
  ProfileRun,
  RunFailure,
  RunStart,
  TelemetrySample,
  Verdict,
  VerdictKind,
} from '../api/profile-model.js';
import type { BuildRecord, Change, CompareRow, RunComparison, RunStatus, RunSummary, StoredRun } from '../api/runs-model.js';
import { compareRuns, type ComparedRun } from './compare.js';
import { type Db, isSqliteError, openConnection, type OpenOptions } from './connection.js';
import { RunsDbError } from './errors.js';
import { liveStatus } from './liveness.js';
import { defaultDbPath } from './location.js';
import {
  BuildSchema,
  check,
  checkId,
  DatasetSchema,
  FinishSchema,
  ListOptionsSchema,
  MachineSchema,
  PointSchema,
  PLAN_SCHEMAS,
  RunSchema,
  RunStartSchema,
  SampleSchema,
  toJson,
} from './validate.js';

// The runs repository: what is recorded and read back, in SQL. Opening the file (pragmas,
// migrations, the native binding) is connection.ts; comparing two runs is compare.ts.

// The shapes it answers are the contract's (core/api/runs-model.ts), so the app's `runs.get`
// and `runs.compare` are typed by what this module returns.
export type { BuildRecord, Change, CompareRow, RunComparison, RunStatus, RunSummary, StoredRun };

/** What startRun() records: the run before it has results. */
export type { RunStart };

/** What a finished run adds besides its status and verdict: the answer and the engines that failed. */
export interface RunEnd {
  answer?: ProfileAnswer | null;
  engineFailures?: EngineFailure[];
}

export { defaultDbPath };

interface RunRow {
  id: number;
  kind: ProfileRun['kind'];
  plan: string;
  status: RunStatus;
  verdict: string | null;
  answer: string | null;
  engine_failures: string | null;
  started_at: string;
  finished_at: string | null;
  machine_id: number;
  dataset_id: number | null;
  hostname: string;
  cpu_model: string;
  cores: number;
  ram_bytes: number;
  m_gpus: string;
  os: string;
  node: string;
  d_path: string | null;
  d_size: number | null;
  d_sha: string | null;
  d_samples: number | null;
  d_schema: string | null;
  dataset_sha256: string | null;
  failure: string | null;
}

interface SummaryRow {
  id: number;
  kind: ProfileRun['kind'];
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  verdict_kind: VerdictKind | null;
  dataset_path: string | null;
  hostname: string;
  n_points: number;
  best: number | null;
  failure: string | null;
  failure_code: string | null;
  d_schema: string | null;
}

interface SampleRow {
  t: number;
  point: number | null;
  images_per_sec: number | null;
  rss: number;
  disk_read: number;
  cpu: string;
  gpus: string;
  proc_cpu: number | null;
  wait_ms: number | null;
}

interface BuildRow {
  id: number;
  dataset_id: number | null;
  dataset_path: string | null;
  config: string;
  report: string;
  created_at: string;
}

const RUN_SELECT = `
SELECT r.id, r.kind, r.plan, r.status, r.verdict, r.answer, r.engine_failures, r.started_at, r.finished_at, r.machine_id, r.dataset_id, r.dataset_sha256, r.failure,
       m.hostname, m.cpu_model, m.cores, m.ram_bytes, m.gpus AS m_gpus, m.os, m.node,
       d.path AS d_path, d.size_bytes AS d_size, d.header_sha256 AS d_sha, d.num_samples AS d_samples, d.schema AS d_schema
FROM profile_runs r JOIN machines m ON m.id = r.machine_id LEFT JOIN datasets d ON d.id = r.dataset_id`;

const SUMMARY_SELECT = `
SELECT r.id, r.kind, r.started_at, r.finished_at, r.status, r.verdict_kind, json_extract(r.failure, '$.message') AS failure,
       json_extract(r.failure, '$.code') AS failure_code,
       COALESCE(d.path, json_extract(r.plan, '$.file')) AS dataset_path, m.hostname, d.schema AS d_schema,
       (SELECT COUNT(*) FROM points p WHERE p.run_id = r.id) AS n_points,
       COALESCE(json_extract(r.answer, '$.best.images_per_sec'),
                (SELECT MAX(p.images_per_sec) FROM points p WHERE p.run_id = r.id),
                json_extract(r.verdict, '$.exec.imagesPerSec')) AS best
FROM profile_runs r JOIN machines m ON m.id = r.machine_id LEFT JOIN datasets d ON d.id = r.dataset_id`;

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new RunsDbError('CORRUPT', `stored ${what} is not valid JSON (${(e as Error).message}); the database file was edited or damaged`);
  }
}

/**
 * The runs database: machines, datasets, builds, profile runs with their points and
 * telemetry samples, in one SQLite file (better-sqlite3, WAL mode). Safe to share between
 * processes — the app and the CLI may have it open at once: writers queue for up to
 * `busyTimeoutMs` instead of failing. Every method is synchronous. Schema: docs/runs-db.md.
 */
export class RunsDb {
  private readonly db: Db;
  readonly path: string;

  private constructor(db: Db, path: string) {
    this.db = db;
    this.path = path;
  }

  /** Opens (creating the file and its folder if needed) and migrates the database. Default path: defaultDbPath(). */
  static open(path?: string, opts: OpenOptions = {}): RunsDb {
    if (path !== undefined && (typeof path !== 'string' || path.length === 0))
      throw new RunsDbError('INVALID_INPUT', 'database path must be a non-empty string');
    const busy = opts.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busy) || busy < 0)
      throw new RunsDbError('INVALID_INPUT', `busyTimeoutMs must be a non-negative integer, got ${String(busy)}`);
    const file = path ?? defaultDbPath();
    const db = openConnection(file, { ...opts, busyTimeoutMs: busy });
    return new RunsDb(db, file);
  }

  /** PRAGMA user_version: the number of migrations applied. */
  get schemaVersion(): number {
    return Number(this.db.pragma('user_version', { simple: true }));
  }

  /** PRAGMA journal_mode ('wal' for files, 'memory' for ':memory:'). */
  get journalMode(): string {
    return String(this.db.pragma('journal_mode', { simple: true }));
  }

  /** PRAGMA integrity_check: 'ok', or the problems found, one a line. */
  integrityCheck(): string {
    const rows = this.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join('\n');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Runs `fn` in a write transaction taken at once (BEGIN IMMEDIATE): no deadlocks between writers. */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private requireRun(runId: number): void {
    if (!this.db.prepare('SELECT 1 FROM profile_runs WHERE id = ?').get(runId))
      throw new RunsDbError('NOT_FOUND', `run ${runId} not found in ${this.path}`);
  }

  /** Records a machine (deduplicated: the same description gives the same id). */
  recordMachine(m: MachineInfo): number {
    const v = check(MachineSchema, m, 'machine');
    const gpus = toJson(v.gpus, 'machine.gpus');
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([v.hostname, v.cpuModel, v.cores, v.ramBytes, v.os, v.node, gpus]))
      .digest('hex');
    const row = this.db
      .prepare<unknown[], { id: number }>(
        `INSERT INTO machines (fingerprint, hostname, cpu_model, cores, ram_bytes, gpus, os, node, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fingerprint) DO UPDATE SET hostname = excluded.hostname RETURNING id`,
      )
      .get(fingerprint, v.hostname, v.cpuModel, v.cores, v.ramBytes, gpus, v.os, v.node, new Date().toISOString());
    return row!.id;
  }

  /** Records a dataset (deduplicated by path + header sha256; size, count and schema are refreshed). */
  recordDataset(d: DatasetInfo): number {
    const v = check(DatasetSchema, d, 'dataset');
    const now = new Date().toISOString();
    const row = this.db
      .prepare<unknown[], { id: number }>(
        `INSERT INTO datasets (path, header_sha256, size_bytes, num_samples, schema, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (path, header_sha256) DO UPDATE SET size_bytes = excluded.size_bytes, num_samples = excluded.num_samples,
           schema = excluded.schema, last_seen = excluded.last_seen RETURNING id`,
      )
      .get(v.path, v.headerSha256, v.sizeBytes, v.numSamples, toJson(v.schema, 'dataset.schema'), now, now);
    return row!.id;
  }

  /** Records a finished build: its config (as given to buildDataset) and report. */
  recordBuild(datasetId: number | null, config: object, report: BuildReport): number {
    const v = check(BuildSchema, { datasetId, config, report }, 'build');
    return this.write(() => {
      if (v.datasetId !== null && !this.db.prepare('SELECT 1 FROM datasets WHERE id = ?').get(v.datasetId)) {
        throw new RunsDbError('NOT_FOUND', `dataset ${v.datasetId} not found in ${this.path}`);
      }
      const r = this.db
        .prepare('INSERT INTO builds (dataset_id, config, report, created_at) VALUES (?, ?, ?, ?)')
        .run(v.datasetId, toJson(v.config, 'build config'), toJson(report, 'build report'), new Date().toISOString());
      return Number(r.lastInsertRowid);
    });
  }

  /** Builds, newest first. */
  listBuilds(opts: { limit?: number } = {}): BuildRecord[] {
    const { limit } = check(ListOptionsSchema, opts, 'listBuilds options');
    const rows = this.db
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

  /** Records the start of a run (status 'running'); returns its id for addPoint/addSamples/finishRun. */
  startRun(run: RunStart): number {
    return this.insertRun(run, { status: 'running', verdict: null, finishedAt: null, failure: null });
  }

  private insertRun(
    run: RunStart,
    end: { status: RunStatus; verdict: Verdict | null; finishedAt: string | null; failure: RunFailure | null } & RunEnd,
  ): number {
    const v = check(RunStartSchema, run, 'run');
    const plan = check(PLAN_SCHEMAS[v.kind], v.plan, `${v.kind} plan`);
    return this.write(() => {
      const machineId = this.recordMachine(v.machine);
      const datasetId = v.dataset ? this.recordDataset(v.dataset) : null;
      const r = this.db
        .prepare(
          `INSERT INTO profile_runs (kind, plan, machine_id, dataset_id, dataset_sha256, status, verdict, verdict_kind, started_at, finished_at, failure,
                                     answer, engine_failures)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          v.kind,
          toJson(plan, 'plan'),
          machineId,
          datasetId,
          v.dataset?.contentSha256 ?? null,
          end.status,
          end.verdict ? toJson(end.verdict, 'verdict') : null,
          end.verdict?.kind ?? null,
          v.startedAt,
          end.finishedAt,
          end.failure ? toJson(end.failure, 'failure') : null,
          end.answer ? toJson(end.answer, 'answer') : null,
          end.engineFailures?.length ? toJson(end.engineFailures, 'engine failures') : null,
        );
      return Number(r.lastInsertRowid);
    });
  }

  /** Adds one measured grid point to a run. Point indexes are unique within a run. */
  addPoint(runId: number, p: PointResult): void {
    checkId(runId, 'run id');
    const v = check(PointSchema, p, 'point');
    this.write(() => {
      this.requireRun(runId);
      this.insertPoint(runId, v);
    });
  }

  private insertPoint(runId: number, v: PointResult): void {
    try {
      this.db
        .prepare(
          `INSERT INTO points (run_id, idx, config, images_per_sec, batches_per_sec, wait_p50_ms, wait_p95_ms, rss_peak, disk_read_bytes,
             page_cache_resident, gpu_util_mean, result, engine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          runId,
          v.index,
          toJson(v.config, 'point config'),
          v.imagesPerSec,
          v.batchesPerSec,
          v.waitP50Ms,
          v.waitP95Ms,
          v.rssPeakBytes,
          v.diskReadBytes,
          v.pageCacheResident,
          v.gpuUtilMean,
          toJson(v, 'point'),
          v.config.engine ?? 'beton',
        );
    } catch (e) {
      if (isSqliteError(e, 'SQLITE_CONSTRAINT_UNIQUE'))
        throw new RunsDbError('INVALID_INPUT', `run ${runId} already has a point with index ${v.index}`);
      throw e;
    }
  }

  /** Appends telemetry samples to a run, all in one transaction. Returns how many were added. */
  addSamples(runId: number, samples: readonly TelemetrySample[]): number {
    checkId(runId, 'run id');
    if (!Array.isArray(samples)) throw new RunsDbError('INVALID_INPUT', 'samples must be an array');
    const vs = samples.map((s, i) => check(SampleSchema, s, `sample ${i}`));
    return this.write(() => {
      this.requireRun(runId);
      this.insertSamples(runId, vs);
      return vs.length;
    });
  }

  private insertSamples(runId: number, vs: readonly TelemetrySample[]): void {
    const stmt = this.db.prepare(
      'INSERT INTO samples (run_id, t, point, images_per_sec, rss, disk_read, cpu, gpus, proc_cpu, wait_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const s of vs)
      stmt.run(
        runId,
        s.t,
        s.point,
        s.imagesPerSec,
        s.rssBytes,
        s.diskReadBytes,
        toJson(s.cpuPerCore, 'sample cpu'),
        toJson(s.gpus, 'sample gpus'),
        s.processCpu ?? null,
        s.waitMsPerStep ?? null,
      );
  }

  /**
   * Stamps a running run's heartbeat (liveness.ts): a 'running' run without one for
   * STALE_RUN_MS reads as interrupted. No-op once the run is finished.
   */
  heartbeat(runId: number, at: string = new Date().toISOString()): void {
    checkId(runId, 'run id');
    this.db.prepare("UPDATE profile_runs SET finished_at = ? WHERE id = ? AND status = 'running'").run(at, runId);
  }

  /** Marks a run finished with its final status and verdict (and, failed, why). */
  finishRun(
    runId: number,
    status: ProfileRun['status'],
    verdict: Verdict | null,
    finishedAt: string = new Date().toISOString(),
    failure: RunFailure | null = null,
    end: RunEnd = {},
  ): void {
    checkId(runId, 'run id');
    const v = check(FinishSchema, { status, verdict, finishedAt, failure, ...end }, 'finishRun arguments');
    const r = this.db
      .prepare(
        'UPDATE profile_runs SET status = ?, verdict = ?, verdict_kind = ?, finished_at = ?, failure = ?, answer = ?, engine_failures = ? WHERE id = ?',
      )
      .run(
        v.status,
        v.verdict ? toJson(v.verdict, 'verdict') : null,
        v.verdict?.kind ?? null,
        v.finishedAt,
        v.failure ? toJson(v.failure, 'failure') : null,
        v.answer ? toJson(v.answer, 'answer') : null,
        v.engineFailures?.length ? toJson(v.engineFailures, 'engine failures') : null,
        runId,
      );
    if (r.changes === 0) throw new RunsDbError('NOT_FOUND', `run ${runId} not found in ${this.path}`);
  }

  /** Stores a complete run (machine, dataset, points, samples, verdict) in one transaction; returns its id. `run.id` is ignored. */
  saveRun(run: ProfileRun): number {
    const v = check(RunSchema, run, 'run');
    return this.write(() => {
      const id = this.insertRun(v, {
        status: v.status,
        verdict: v.verdict,
        finishedAt: v.finishedAt,
        failure: v.failure ?? null,
        answer: (v.answer ?? null) as ProfileAnswer | null,
        engineFailures: v.engineFailures as EngineFailure[] | undefined,
      });
      for (const p of v.points) this.insertPoint(id, p);
      this.insertSamples(id, v.samples);
      return id;
    });
  }

  /** Runs, newest first (by startedAt), with their best images/s and verdict. */
  listRuns(opts: { limit?: number } = {}): RunSummary[] {
    const { limit } = check(ListOptionsSchema, opts, 'listRuns options');
    return this.db
      .prepare<unknown[], SummaryRow>(`${SUMMARY_SELECT} ORDER BY r.started_at DESC, r.id DESC LIMIT ?`)
      .all(limit ?? -1)
      .map(toSummary);
  }

  /** One run's summary, or null. */
  getSummary(id: number): RunSummary | null {
    checkId(id, 'run id');
    const row = this.db.prepare<unknown[], SummaryRow>(`${SUMMARY_SELECT} WHERE r.id = ?`).get(id);
    return row ? toSummary(row) : null;
  }

  /** A whole run, reassembled (points by index, samples in insertion order), or null if there is none with this id. */
  getRun(id: number): StoredRun | null {
    checkId(id, 'run id');
    return this.db.transaction(() => {
      const r = this.db.prepare<unknown[], RunRow>(`${RUN_SELECT} WHERE r.id = ?`).get(id);
      if (!r) return null;
      const machine: MachineInfo = {
        hostname: r.hostname,
        cpuModel: r.cpu_model,
        cores: r.cores,
        ramBytes: r.ram_bytes,
        os: r.os,
        node: r.node,
        gpus: parseJson<MachineInfo['gpus']>(r.m_gpus, `gpus of machine ${r.machine_id}`),
      };
      const dataset: DatasetInfo | null =
        r.dataset_id === null
          ? null
          : {
              path: r.d_path!,
              sizeBytes: r.d_size!,
              headerSha256: r.d_sha!,
              // The run's own record: the datasets row is shared by every run of this path and layout.
              ...(r.dataset_sha256 !== null ? { contentSha256: r.dataset_sha256 } : {}),
              numSamples: r.d_samples!,
              schema: parseJson<DatasetInfo['schema']>(r.d_schema!, `schema of dataset ${r.dataset_id}`),
            };
      const samples = this.db
        .prepare<unknown[], SampleRow>(
          'SELECT t, point, images_per_sec, rss, disk_read, cpu, gpus, proc_cpu, wait_ms FROM samples WHERE run_id = ? ORDER BY id',
        )
        .all(id)
        .map((s): TelemetrySample => ({
          t: s.t,
          point: s.point,
          imagesPerSec: s.images_per_sec,
          cpuPerCore: parseJson<number[]>(s.cpu, `cpu of a sample of run ${id}`),
          rssBytes: s.rss,
          diskReadBytes: s.disk_read,
          gpus: parseJson<TelemetrySample['gpus']>(s.gpus, `gpus of a sample of run ${id}`),
          // Absent, not null, when not recorded: older samples read back as they were stored.
          ...(s.proc_cpu !== null ? { processCpu: s.proc_cpu } : {}),
          ...(s.wait_ms !== null ? { waitMsPerStep: s.wait_ms } : {}),
        }));
      const failure = r.failure !== null ? parseJson<RunFailure>(r.failure, `failure of run ${id}`) : null;
      return {
        id: r.id,
        kind: r.kind,
        startedAt: r.started_at,
        ...liveStatus(r.status, failure?.code, r.finished_at, r.started_at),
        ...(failure !== null ? { failure } : {}),
        plan: parseJson<ProfileRun['plan']>(r.plan, `plan of run ${id}`),
        machine,
        dataset,
        points: this.points(id),
        samples,
        verdict: r.verdict === null ? null : parseJson<Verdict>(r.verdict, `verdict of run ${id}`),
        // Absent, not null, in runs recorded before answers: they read back as they were stored.
        ...(r.answer !== null ? { answer: parseJson<ProfileAnswer>(r.answer, `answer of run ${id}`) } : {}),
        ...(r.engine_failures !== null
          ? { engineFailures: parseJson<EngineFailure[]>(r.engine_failures, `engine failures of run ${id}`) }
          : {}),
      };
    })();
  }

  private points(runId: number): PointResult[] {
    return this.db
      .prepare<unknown[], { result: string }>('SELECT result FROM points WHERE run_id = ? ORDER BY idx')
      .all(runId)
      .map((p) => parseJson<PointResult>(p.result, `a point of run ${runId}`));
  }

  /** Deletes a run with its points and samples; false if there was none. */
  deleteRun(id: number): boolean {
    checkId(id, 'run id');
    return this.write(() => this.db.prepare('DELETE FROM profile_runs WHERE id = ?').run(id).changes > 0);
  }

  /** Compares two runs point by point (matching workers, batch size, order and cache). Throws NOT_FOUND if either is missing. */
  compare(a: number, b: number): RunComparison {
    checkId(a, 'run id A');
    checkId(b, 'run id B');
    return this.db.transaction(() => {
      const [sa, sb] = [this.getSummary(a), this.getSummary(b)];
      const missing = [sa ? null : a, sb ? null : b].filter((x) => x !== null);
      if (!sa || !sb)
        throw new RunsDbError('NOT_FOUND', `run${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} not found in ${this.path}`);
      const meta = this.db.prepare<unknown[], { machine_id: number; dataset_sha256: string | null; verdict: string | null }>(
        'SELECT machine_id, dataset_sha256, verdict FROM profile_runs WHERE id = ?',
      );
      const [ma, mb] = [meta.get(a)!, meta.get(b)!];
      const [pa, pb] = [this.points(a), this.points(b)];
      const verdict = (s: string | null, id: number): Verdict | null => (s === null ? null : parseJson<Verdict>(s, `verdict of run ${id}`));
      const side = (summary: RunSummary, points: PointResult[], m: typeof ma): ComparedRun => ({
        summary,
        points,
        machineId: m.machine_id,
        datasetSha256: m.dataset_sha256,
        verdict: verdict(m.verdict, summary.id),
      });
      return compareRuns(side(sa, pa, ma), side(sb, pb, mb));
    })();
  }
}

function toSummary(r: SummaryRow): RunSummary {
  return {
    id: r.id,
    kind: r.kind,
    startedAt: r.started_at,
    ...liveStatus(r.status, r.failure_code, r.finished_at, r.started_at),
    datasetPath: r.dataset_path,
    hostname: r.hostname,
    points: r.n_points,
    bestImagesPerSec: r.best,
    datasetSchema: r.d_schema === null ? null : parseJson<DatasetInfo['schema']>(r.d_schema, `schema of the dataset of run ${r.id}`),
    verdictKind: r.verdict_kind,
    failure: r.failure,
  };
}

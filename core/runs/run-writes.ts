import type { ProfileAnswer } from '../api/profile-answer.js';
import type { EngineFailure, PointResult, ProfileRun, RunFailure, RunStart, TelemetrySample, Verdict } from '../api/profile-model.js';
import type { RunStatus } from '../api/runs-model.js';
import { recordDataset, recordMachine } from './catalog.js';
import { isSqliteError } from './connection.js';
import { RunsDbError } from './errors.js';
import { type Store, writeTransaction } from './store.js';
import { check, checkId, FinishSchema, PLAN_SCHEMAS, PointSchema, RunSchema, RunStartSchema, SampleSchema, toJson } from './validate.js';

// Recording profile runs: a run's start, its points and telemetry samples as they come, its
// heartbeat and its end; or a whole run at once; and deleting one.

/** What startRun() records: the run before it has results (declared once, in api/profile-model.ts). */
export type { RunStart };

/** What a finished run adds besides its status and verdict: the answer and the engines that failed. */
export interface RunEnd {
  answer?: ProfileAnswer | null;
  engineFailures?: EngineFailure[];
}

function requireRun(s: Store, runId: number): void {
  if (!s.db.prepare('SELECT 1 FROM profile_runs WHERE id = ?').get(runId))
    throw new RunsDbError('NOT_FOUND', `run ${runId} not found in ${s.path}`);
}

/** Records the start of a run (status 'running'); returns its id for addPoint/addSamples/finishRun. */
export function startRun(s: Store, run: RunStart): number {
  return insertRun(s, run, { status: 'running', verdict: null, finishedAt: null, failure: null });
}

function insertRun(
  s: Store,
  run: RunStart,
  end: { status: RunStatus; verdict: Verdict | null; finishedAt: string | null; failure: RunFailure | null } & RunEnd,
): number {
  const v = check(RunStartSchema, run, 'run');
  const plan = check(PLAN_SCHEMAS[v.kind], v.plan, `${v.kind} plan`);
  return writeTransaction(s, () => {
    const machineId = recordMachine(s, v.machine);
    const datasetId = v.dataset ? recordDataset(s, v.dataset) : null;
    const r = s.db
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
export function addPoint(s: Store, runId: number, p: PointResult): void {
  checkId(runId, 'run id');
  const v = check(PointSchema, p, 'point');
  writeTransaction(s, () => {
    requireRun(s, runId);
    insertPoint(s, runId, v);
  });
}

function insertPoint(s: Store, runId: number, v: PointResult): void {
  try {
    s.db
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
export function addSamples(s: Store, runId: number, samples: readonly TelemetrySample[]): number {
  checkId(runId, 'run id');
  if (!Array.isArray(samples)) throw new RunsDbError('INVALID_INPUT', 'samples must be an array');
  const vs = samples.map((s, i) => check(SampleSchema, s, `sample ${i}`));
  return writeTransaction(s, () => {
    requireRun(s, runId);
    insertSamples(s, runId, vs);
    return vs.length;
  });
}

function insertSamples(s: Store, runId: number, vs: readonly TelemetrySample[]): void {
  const stmt = s.db.prepare(
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
export function heartbeat(s: Store, runId: number, at: string = new Date().toISOString()): void {
  checkId(runId, 'run id');
  s.db.prepare("UPDATE profile_runs SET finished_at = ? WHERE id = ? AND status = 'running'").run(at, runId);
}

/** Marks a run finished with its final status and verdict (and, failed, why). */
export function finishRun(
  s: Store,
  runId: number,
  status: ProfileRun['status'],
  verdict: Verdict | null,
  finishedAt: string = new Date().toISOString(),
  failure: RunFailure | null = null,
  end: RunEnd = {},
): void {
  checkId(runId, 'run id');
  const v = check(FinishSchema, { status, verdict, finishedAt, failure, ...end }, 'finishRun arguments');
  const r = s.db
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
  if (r.changes === 0) throw new RunsDbError('NOT_FOUND', `run ${runId} not found in ${s.path}`);
}

/** Stores a complete run (machine, dataset, points, samples, verdict) in one transaction; returns its id. `run.id` is ignored. */
export function saveRun(s: Store, run: ProfileRun): number {
  const v = check(RunSchema, run, 'run');
  return writeTransaction(s, () => {
    const id = insertRun(s, v, {
      status: v.status,
      verdict: v.verdict,
      finishedAt: v.finishedAt,
      failure: v.failure ?? null,
      answer: (v.answer ?? null) as ProfileAnswer | null,
      engineFailures: v.engineFailures as EngineFailure[] | undefined,
    });
    for (const p of v.points) insertPoint(s, id, p);
    insertSamples(s, id, v.samples);
    return id;
  });
}

/** Deletes a run with its points and samples; false if there was none. */
export function deleteRun(s: Store, id: number): boolean {
  checkId(id, 'run id');
  return writeTransaction(s, () => s.db.prepare('DELETE FROM profile_runs WHERE id = ?').run(id).changes > 0);
}

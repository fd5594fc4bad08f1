import type { ProfileAnswer } from '../api/profile-answer.js';
import type {
  DatasetInfo,
  EngineFailure,
  MachineInfo,
  PointResult,
  ProfileRun,
  RunFailure,
  TelemetrySample,
  Verdict,
  VerdictKind,
} from '../api/profile-model.js';
import type { RunComparison, RunStatus, RunSummary, StoredRun } from '../api/runs-model.js';
import { compareRuns, type ComparedRun } from './compare.js';
import { RunsDbError } from './errors.js';
import { liveStatus } from './liveness.js';
import { parseJson, type Store } from './store.js';
import { check, checkId, ListOptionsSchema } from './validate.js';

// Reading profile runs back: the list with each run's best, one run reassembled (machine,
// dataset, points, samples, verdict), and two runs compared.

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

/** Runs, newest first (by startedAt), with their best images/s and verdict. */
export function listRuns(s: Store, opts: { limit?: number } = {}): RunSummary[] {
  const { limit } = check(ListOptionsSchema, opts, 'listRuns options');
  return s.db
    .prepare<unknown[], SummaryRow>(`${SUMMARY_SELECT} ORDER BY r.started_at DESC, r.id DESC LIMIT ?`)
    .all(limit ?? -1)
    .map(toSummary);
}

/** One run's summary, or null. */
export function getSummary(s: Store, id: number): RunSummary | null {
  checkId(id, 'run id');
  const row = s.db.prepare<unknown[], SummaryRow>(`${SUMMARY_SELECT} WHERE r.id = ?`).get(id);
  return row ? toSummary(row) : null;
}

/** A whole run, reassembled (points by index, samples in insertion order), or null if there is none with this id. */
export function getRun(s: Store, id: number): StoredRun | null {
  checkId(id, 'run id');
  return s.db.transaction(() => {
    const r = s.db.prepare<unknown[], RunRow>(`${RUN_SELECT} WHERE r.id = ?`).get(id);
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
    const samples = s.db
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
      points: points(s, id),
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

function points(s: Store, runId: number): PointResult[] {
  return s.db
    .prepare<unknown[], { result: string }>('SELECT result FROM points WHERE run_id = ? ORDER BY idx')
    .all(runId)
    .map((p) => parseJson<PointResult>(p.result, `a point of run ${runId}`));
}

/** Compares two runs point by point (matching workers, batch size, order and cache). Throws NOT_FOUND if either is missing. */
export function compare(s: Store, a: number, b: number): RunComparison {
  checkId(a, 'run id A');
  checkId(b, 'run id B');
  return s.db.transaction(() => {
    const [sa, sb] = [getSummary(s, a), getSummary(s, b)];
    const missing = [sa ? null : a, sb ? null : b].filter((x) => x !== null);
    if (!sa || !sb)
      throw new RunsDbError('NOT_FOUND', `run${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} not found in ${s.path}`);
    const meta = s.db.prepare<unknown[], { machine_id: number; dataset_sha256: string | null; verdict: string | null }>(
      'SELECT machine_id, dataset_sha256, verdict FROM profile_runs WHERE id = ?',
    );
    const [ma, mb] = [meta.get(a)!, meta.get(b)!];
    const [pa, pb] = [points(s, a), points(s, b)];
    const verdict = (text: string | null, id: number): Verdict | null =>
      text === null ? null : parseJson<Verdict>(text, `verdict of run ${id}`);
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

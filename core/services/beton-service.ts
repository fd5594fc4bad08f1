import { availableParallelism, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { ApiEvent, EnvInfo, Envelope, Method, ParsedParams, Results } from '../api/contract.js';
import { parseRequest } from '../api/contract.js';
import { parseBuildConfig } from '../api/build-config.js';
import { buildExport, joinCode, loaderExport } from '../app/export-code.js';
import { decodePath } from '../native/turbo.js';
import { gpuInventory } from '../profile/gpu-sampler.js';
import { engineAvailability } from '../profile/python-engine.js';
import { checkEngines } from '../profile/sweep.js';
import { profileExec, profileSweep } from '../app/profile-run.js';
import { compareRuns, deleteRun, getRun, listRuns } from '../app/runs-queries.js';
import { defaultDbPath, RunsDb } from '../runs/runs-db.js';
import { openSource } from '../sources/open-source.js';
import { buildDataset } from '../app/build.js';
import { distinctCategories } from '../sources/label-mapping.js';
import { detectSourceConfig } from '../sources/open-source.js';
import { openTableReader } from '../sources/open-table.js';
import { inspectDataset } from '../app/inspect-dataset.js';
import { checkDataset, readDatasetCheck } from '../app/check-dataset.js';
import { previewDataset } from './dataset-views.js';
import { sampleDetail } from './sample-detail-view.js';
import { FsAccess } from './fs-access.js';
import type { ReadGuard } from '../sources/read-guard.js';
import { BuildHistory } from './build-history.js';
import { JobFailed, JobManager } from './jobs.js';
import { packageVersion } from './package-version.js';
import { apiErrorOf, ServiceError } from './service-error.js';
import { checkBuildOutput } from '../app/output-guard.js';
import { isRemoteUrl } from '../remote/url.js';
import { RemoteAccess } from './remote-access.js';
import { programsNamed } from './spawn-gate.js';

export interface ServiceOptions {
  /** Folders clients may open (beton serve); null: any local path (Electron). */
  roots: string[] | null;
  dbPath?: string;
  host: 'electron' | 'server';
  version?: string;
  /**
   * Run commands a client names (profiles.start `exec`, a build config's `ffmpeg`)?
   * Default: in Electron yes (the user at the keyboard is the client), in `beton serve`
   * only with --allow-exec (else anyone with the token gets a shell).
   */
  allowExec?: boolean;
  /** URL prefixes whose datasets clients may open (beton serve --allow-remote); Electron: any URL. */
  remoteRoots?: string[];
}

/** The EXEC_DISABLED answer: what is off, why, and how to turn it on. */
export const EXEC_DISABLED_MESSAGE =
  'running commands is off on this server: whoever holds its link could run any shell command as you. Restart it with `beton serve --allow-exec` to turn it on';

type Handler<M extends Method> = (p: ParsedParams<M>) => Promise<Results[M]>;

/**
 * The core services behind the app, one implementation for both hosts: Electron main
 * wires it to IPC, `beton serve` to HTTP. Every call is validated against the contract
 * and answers with an envelope; errors carry a stable code and a message for people.
 */
export class BetonService {
  private readonly fs: FsAccess;
  /** Confines what sources read on their own (rows of a list, class folders) when fs is confined. */
  private readonly readGuard: ReadGuard | undefined;
  private readonly allowExec: boolean;
  private readonly remote: RemoteAccess;
  private readonly jobs: JobManager;
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  private db: RunsDb | null = null;
  private readonly history = new BuildHistory();

  constructor(private readonly opts: ServiceOptions) {
    this.fs = new FsAccess(opts.roots);
    this.readGuard = this.fs.readGuard();
    this.allowExec = opts.allowExec ?? opts.host === 'electron';
    this.remote = new RemoteAccess(opts.remoteRoots ?? [], opts.host === 'electron');
    this.jobs = new JobManager((e) => {
      if (e.event === 'jobs:finished' && e.data.kind === 'build') this.history.finish(e.data);
      this.emit(e);
    });
  }

  /** A dataset a client names: a local path inside the roots, or a URL under --allow-remote. */
  private datasetPath(p: string): string {
    return isRemoteUrl(p) ? this.remote.check(p) : this.fs.check(p);
  }

  on(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: ApiEvent): void {
    for (const l of this.listeners) l(e);
  }

  private runs(): RunsDb {
    // Checked once when opened: a damaged file answers CORRUPT in every call, not in some.
    this.db ??= RunsDb.open(this.opts.dbPath, { check: true });
    return this.db;
  }

  async call(method: unknown, params: unknown): Promise<Envelope<unknown>> {
    const req = parseRequest(method, params);
    if (!req.ok) return { ok: false, error: req.error };
    // The spawn gate: before any handler, for every method (core/services/spawn-gate.ts).
    const named = programsNamed(req.params);
    if (named.length > 0 && !this.allowExec)
      return { ok: false, error: { code: 'EXEC_DISABLED', message: `${named.join(', ')}: ${EXEC_DISABLED_MESSAGE}` } };
    try {
      const h = this.handlers[req.method] as Handler<Method>;
      return { ok: true, value: await h(req.params) };
    } catch (e) {
      return { ok: false, error: apiErrorOf(e) };
    }
  }

  close(): void {
    this.jobs.cancelAll();
    this.db?.close();
    this.db = null;
  }

  private readonly handlers: { [M in Method]: Handler<M> } = {
    'env.info': async (): Promise<EnvInfo> => {
      const gpus = await gpuInventory().catch(() => []);
      return {
        version: this.opts.version ?? packageVersion(),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cores: availableParallelism(),
        ramBytes: totalmem(),
        gpus,
        decodePath: decodePath(),
        dbPath: this.opts.dbPath ?? defaultDbPath(),
        roots: this.fs.roots,
        host: this.opts.host,
        allowExec: this.allowExec,
      };
    },
    'fs.browse': async (p) => this.fs.browse(p.path),
    'sources.detect': async (p) => {
      const path = this.fs.check(p.path);
      const guard = this.readGuard ? { readGuard: this.readGuard } : {};
      const source = await detectSourceConfig(path, {
        imageColumn: p.imageColumn,
        clipLength: p.clipLength ?? 16,
        stride: p.stride,
        fps: p.fps ?? null,
        ...guard,
      });
      const src = await openSource(source, dirname(path), guard);
      const fields = await src.detectSchema();
      return { source, fields, length: src.length };
    },
    'sources.categories': async (p) => {
      const reader = await openTableReader(this.fs.check(p.path), p.format);
      return { column: p.column, ...(await distinctCategories(reader, p.column)) };
    },
    'datasets.inspect': async (p) => inspectDataset(this.datasetPath(p.path)),
    'datasets.preview': async (p) =>
      previewDataset(this.datasetPath(p.path), p.start, p.count, p.thumb, {
        ...(p.label !== undefined ? { label: p.label } : {}),
        ...(p.labelField ? { labelField: p.labelField } : {}),
        ...(p.where ? { where: p.where } : {}),
      }),
    'datasets.sample': async (p) => sampleDetail(this.fs.check(p.path), p.index),
    'datasets.check': async (p) => {
      const file = this.fs.check(p.path);
      if (!p.run) return readDatasetCheck(file);
      return checkDataset(file);
    },
    'builds.start': async (p) => {
      // A video source's own ffmpeg is a program the client names: the spawn gate in call() refused it unless allowed.
      const config = {
        ...p.config,
        source: { ...p.config.source, path: this.fs.check(p.config.source.path) },
        output: this.fs.check(p.config.output, { mustExist: false }),
      };
      // Refused before a job exists (the client gets OUTPUT_EXISTS / OUTPUT_IS_INPUT, not a failed job).
      const overwrite = p.overwrite ?? false;
      await checkBuildOutput(config, process.cwd(), { overwrite });
      const readGuard = this.readGuard;
      const jobId = this.jobs.start('build', async ({ signal, progress }) => {
        const report = await buildDataset(config, {
          signal,
          overwrite,
          ...(readGuard ? { readGuard } : {}),
          onProgress: (x) =>
            progress({
              done: x.done,
              total: x.total,
              rate: x.samplesPerSec,
              etaMs: x.etaMs,
              elapsedMs: x.elapsedMs,
              recentRate: x.recentSamplesPerSec,
            }),
        });
        try {
          const { recordBuild } = await import('../app/record-build.js');
          await recordBuild(this.runs(), config, report);
          this.emit({ event: 'runs:changed', data: {} });
        } catch {
          // The dataset is written; a database problem must not turn the build into a failure.
        }
        return report;
      });
      this.history.started(jobId, p.config);
      return { jobId };
    },
    'builds.list': async () => this.history.list(),
    'builds.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId) }),
    'builds.advise': async (p) => {
      const { adviseBuild } = await import('../app/build-advice.js');
      const config = { ...p.config, source: { ...p.config.source, path: this.fs.check(p.config.source.path) } };
      return adviseBuild(config, {
        sample: p.sample,
        seed: p.seed,
        loaderSize: p.loaderSize,
        previewItems: p.previewItems,
        ...(this.readGuard ? { readGuard: this.readGuard } : {}),
      });
    },
    'profiles.start': async (p) => {
      // Refused before a job exists, so the client gets the code (403), not a failed job.
      const file = 'plan' in p ? this.fs.check(p.plan.file) : '';
      const source = 'plan' in p && p.plan.source !== undefined ? this.fs.check(p.plan.source) : undefined;
      // A missing engine (no FFCV in the server's Python) is the request's error, before a job or a run exists.
      if ('plan' in p) checkEngines({ ...p.plan, ...(source !== undefined ? { source } : {}) });
      // A command's dataset is read too (its content hash identifies it in Runs): confined alike.
      const execFile = 'exec' in p && p.exec.file ? this.fs.check(p.exec.file) : null;
      // The run is stored at the end: a database that cannot take it fails now, not after the sweep.
      this.runs();
      const changed = (): void => this.emit({ event: 'runs:changed', data: {} });
      const jobId = this.jobs.start('profile', async ({ signal, progress, sample }) => {
        if ('plan' in p) {
          const { outcome } = await profileSweep({ ...p.plan, file, ...(source !== undefined ? { source } : {}) }, this.runs(), {
            signal,
            onSample: sample,
            onPoint: (_pt, done, total) => progress({ done, total, rate: 0, etaMs: null, message: `point ${done} of ${total}` }),
            onFailedRecorded: changed,
          });
          changed();
          return outcome;
        }
        const { result: res, outcome } = await profileExec(
          { command: p.exec.command, throughputRegex: p.exec.throughputRegex, file: execFile },
          this.runs(),
          { signal, onSample: sample },
        );
        changed();
        // A command that exits non-zero failed, whatever it printed: the job says so, with its exit code and stderr.
        if (outcome.failure)
          return new JobFailed(
            'EXEC_FAILED',
            `${outcome.failure}${res.stderrTail.length ? `: ${res.stderrTail[res.stderrTail.length - 1]}` : ''}`,
            outcome,
          );
        return outcome;
      });
      return { jobId };
    },
    'profiles.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId) }),
    // Spawns only the server's own Python (BETON_PYTHON or python3 on PATH) to try an import; the client names nothing.
    'profiles.engines': async () =>
      (['beton', 'ffcv', 'torch'] as const).map((e) => {
        const a = engineAvailability(e);
        return { engine: e, available: a.available, python: a.python, reason: a.reason };
      }),
    'runs.list': async (p) => listRuns(this.runs(), p.limit),
    'runs.get': async (p) => getRun(this.runs(), p.id),
    'runs.compare': async (p) => compareRuns(this.runs(), p.a, p.b),
    'runs.delete': async (p) => {
      const deleted = deleteRun(this.runs(), p.id);
      if (deleted) this.emit({ event: 'runs:changed', data: {} });
      return { deleted };
    },
    'export.generate': async (p) => {
      if (p.format === 'json')
        return {
          text: JSON.stringify({ ...(p.build ? { build: p.build } : {}), ...(p.loader ? { loader: p.loader } : {}) }, null, 2),
          language: 'json',
        };
      const parts: string[] = [];
      if (p.build) {
        const checked = parseBuildConfig(p.build);
        if (!checked.ok) throw new ServiceError('BAD_REQUEST', checked.errors.join('; '));
        // The source is read (and so checked) only when the config does not list its fields.
        const sourcePath = checked.value.fields ? undefined : this.fs.check(checked.value.source.path);
        parts.push(
          (await buildExport(checked.value, process.cwd(), { sourcePath, ...(this.readGuard ? { readGuard: this.readGuard } : {}) })).text,
        );
      }
      if (p.loader) {
        // The file's fields when it lies in the served folders; otherwise the code is written from the config alone.
        let fieldsFrom: string | null;
        try {
          fieldsFrom = this.fs.check(p.loader.file);
        } catch {
          fieldsFrom = null;
        }
        parts.push(await loaderExport(p.loader, fieldsFrom));
      }
      return { text: joinCode(parts), language: 'python' };
    },
  };
}

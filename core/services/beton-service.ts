import { availableParallelism, totalmem } from 'node:os';
import type { ApiEvent, EnvInfo, Envelope, Method, ParsedParams, Results } from '../api/contract.js';
import { parseRequest } from '../api/contract.js';
import { parseBuildConfig } from '../api/build-config.js';
import { buildExport, joinCode, loaderExport } from '../app/export-code.js';
import { runOrigin } from '../app/export-loader.js';
import { decodePath, decoderName } from '../native/turbo.js';
import { gpuInventory } from '../profile/sampling/gpu-sampler.js';
import { engineAvailability } from '../profile/engines/python-engine.js';
import { checkEngines } from '../profile/sweep/sweep.js';
import { profileExec, profileSweep } from '../app/profile-run.js';
import { profileExecSweep } from '../app/profile-exec-sweep.js';
import { compareRuns, deleteRun, getRun, listRuns } from '../app/runs-queries.js';
import { defaultDbPath, RunsDb } from '../runs/runs-db.js';
import { guardBuild, runBuild } from '../app/build.js';
import { detectSource } from '../app/detect-source.js';
import { recordInto } from '../app/record-build.js';
import { distinctCategories } from '../sources/tables/label-mapping.js';
import { openTableReader } from '../sources/tables/open-table.js';
import { inspectDataset } from '../app/inspect-dataset.js';
import { checkDataset, readDatasetCheck } from '../app/check-dataset.js';
import { previewDataset } from './dataset-views.js';
import { sampleDetail } from './sample-detail-view.js';
import { FsAccess } from './fs-access.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import { BuildHistory } from './build-history.js';
import { JobFailed, JobManager } from './jobs.js';
import { packageVersion } from './package-version.js';
import { apiErrorOf, ServiceError } from './service-error.js';
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
  /** The Python interpreter of the ffcv and torch engines (beton serve --python; default $BETON_PYTHON, else python3). */
  python?: string;
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

  /**
   * A dataset a local-only view needs (the health check hashes every byte and keeps its
   * result beside the file): a URL is refused with what to do instead, not "not found".
   */
  private localDatasetPath(p: string, what: string): string {
    if (isRemoteUrl(p))
      throw new ServiceError('BAD_REQUEST', `${p}: ${what} reads local files only; copy it with \`beton cp ${p} FILE\` and open the copy`);
    return this.fs.check(p);
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

  /** Builds, profiles and checks started and not finished yet. */
  get runningJobs(): number {
    return this.jobs.running;
  }

  /** Resolves true when every job has finished, false after `timeoutMs` (a host quitting waits for cleanup). */
  whenIdle(timeoutMs: number): Promise<boolean> {
    return this.jobs.whenIdle(timeoutMs);
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
        decoderName: decoderName(),
        dbPath: this.opts.dbPath ?? defaultDbPath(),
        roots: this.fs.roots,
        host: this.opts.host,
        allowExec: this.allowExec,
      };
    },
    'fs.browse': async (p) => this.fs.browse(p.path),
    // The form shows what detection proposes (a video folder's clip length) for the user to edit before building.
    'sources.detect': async (p) =>
      detectSource({
        ...p,
        path: this.fs.checkSource(p.path),
        proposeClipLength: true,
        ...(this.readGuard ? { readGuard: this.readGuard } : {}),
      }),
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
    'datasets.sample': async (p) => sampleDetail(this.datasetPath(p.path), p.index),
    'datasets.check': async (p) => {
      const file = this.localDatasetPath(p.path, 'The health check');
      if (!p.run) return readDatasetCheck(file);
      return checkDataset(file);
    },
    'checks.start': async (p) => {
      const file = this.localDatasetPath(p.path, 'the health check');
      const jobId = this.jobs.start('check', ({ signal, progress }) =>
        checkDataset(file, {
          signal,
          onProgress: (x) => progress({ done: x.done, total: x.total, rate: x.samplesPerSec, etaMs: x.etaMs, elapsedMs: x.elapsedMs }),
        }),
      );
      return { jobId };
    },
    'checks.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId, 'check') }),
    'builds.start': async (p) => {
      // A video source's own ffmpeg is a program the client names: the spawn gate in call() refused it unless allowed.
      const config = {
        ...p.config,
        source: { ...p.config.source, path: this.fs.checkSource(p.config.source.path) },
        output: this.fs.check(p.config.output, { mustExist: false }),
      };
      // Guarded before a job exists (the client gets OUTPUT_EXISTS / OUTPUT_IS_INPUT, not a failed job), and only here.
      const readGuard = this.readGuard;
      const guard = await guardBuild(config, process.cwd(), { overwrite: p.overwrite ?? false, ...(readGuard ? { readGuard } : {}) });
      const record = recordInto(
        () => this.runs(),
        () => this.emit({ event: 'runs:changed', data: {} }),
      );
      const jobId = this.jobs.start('build', async ({ signal, progress }) => {
        const { report } = await runBuild(config, guard, {
          signal,
          record,
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
        return report;
      });
      this.history.started(jobId, p.config);
      return { jobId };
    },
    'builds.list': async () => {
      const { buildList, RECORDED_BUILDS } = await import('../app/build-list.js');
      return buildList(this.history.list(), () => this.runs().listBuilds({ limit: RECORDED_BUILDS }));
    },
    'builds.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId, 'build') }),
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
      // A URL under --allow-remote is swept as `beton profile URL` does (network-bound verdicts).
      const file = 'plan' in p ? this.datasetPath(p.plan.file) : '';
      const source = 'plan' in p && p.plan.source !== undefined ? this.fs.check(p.plan.source) : undefined;
      // The engines' interpreter: the plan's (past the spawn gate: naming one is running it), else the server's.
      const python = ('plan' in p ? p.plan.python : undefined) ?? this.opts.python ?? null;
      // A missing engine (no FFCV in that Python) is the request's error, before a job or a run exists:
      // this runs the interpreter, which validates it.
      if ('plan' in p) await checkEngines({ ...p.plan, ...(source !== undefined ? { source } : {}) }, python);
      // A command's dataset is read too (its content hash identifies it in Runs): confined alike.
      const execFile = 'exec' in p && p.exec.file ? this.fs.check(p.exec.file) : null;
      // The run is stored at the end: a database that cannot take it fails now, not after the sweep.
      this.runs();
      const changed = (): void => this.emit({ event: 'runs:changed', data: {} });
      const jobId = this.jobs.start('profile', async ({ signal, progress, sample }) => {
        if ('plan' in p) {
          const { python: _named, ...plan } = p.plan;
          void _named;
          const { outcome } = await profileSweep({ ...plan, file, ...(source !== undefined ? { source } : {}) }, this.runs(), {
            signal,
            python,
            onSample: sample,
            // The message says what is being measured or waited for; done counts finished points.
            onWait: (message, done, total) => progress({ done, total, rate: 0, etaMs: null, message }),
            onPoint: (_pt, done, total) => progress({ done, total, rate: 0, etaMs: null, message: `${done} of ${total} points measured` }),
            onEngineFailed: (f) =>
              progress({
                done: 0,
                total: 0,
                rate: 0,
                etaMs: null,
                message: `the ${f.engine} engine failed: ${f.message}; the other engines go on`,
              }),
            onFailedRecorded: changed,
          });
          changed();
          return outcome;
        }
        if (p.exec.workers?.length || p.exec.batchSizes?.length) {
          // A training-command sweep: the command once per grid point (the spawn gate let `exec` through).
          const { outcome } = await profileExecSweep(
            {
              command: p.exec.command,
              throughputRegex: p.exec.throughputRegex,
              file: execFile,
              ...(p.exec.workers ? { workers: p.exec.workers } : {}),
              ...(p.exec.batchSizes ? { batchSizes: p.exec.batchSizes } : {}),
              ...(p.exec.secondsPerPoint ? { secondsPerPoint: p.exec.secondsPerPoint } : {}),
            },
            this.runs(),
            {
              signal,
              onSample: sample,
              stdout: null,
              stderr: null,
              onWait: (message, done, total) => progress({ done, total, rate: 0, etaMs: null, message }),
              onPoint: (_pt, done, total) =>
                progress({ done, total, rate: 0, etaMs: null, message: `${done} of ${total} points measured` }),
            },
          );
          changed();
          if (outcome.failure) return new JobFailed('EXEC_FAILED', outcome.failure, outcome);
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
    'profiles.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId, 'profile') }),
    // Spawns only the server's own Python (BETON_PYTHON or python3 on PATH) to try an import; the client names nothing.
    // Asynchronous (a child with a timeout): other requests are answered while Python imports torch.
    'profiles.engines': async () =>
      Promise.all(
        (['beton', 'ffcv', 'torch'] as const).map(async (e) => {
          const a = await engineAvailability(e, this.opts.python ?? null);
          // Advice for where it is read: the app's user starts the server or names an interpreter in the Profile screen.
          const reason = a.reason?.replace(
            'or pass --python PATH',
            'or restart the server with beton serve --python PATH, or name an interpreter in the Profile screen',
          );
          return { engine: e, available: a.available, python: a.python, reason: reason ?? null };
        }),
      ),
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
        // The file's fields when it lies in the served folders or under --allow-remote (read from
        // what the open fetches, no data pages); otherwise the code is written from the config alone.
        let fieldsFrom: string | null;
        try {
          fieldsFrom = this.datasetPath(p.loader.file);
        } catch {
          fieldsFrom = null;
        }
        // Named in the code: the run and point the settings came from (NOT_FOUND for a run that is gone).
        const origin = p.from ? runOrigin(getRun(this.runs(), p.from.run), p.from.run, p.from.point) : undefined;
        parts.push(await loaderExport(p.loader, fieldsFrom, origin));
      }
      return { text: joinCode(parts), language: 'python' };
    },
  };
}

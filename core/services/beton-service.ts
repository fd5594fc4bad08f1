import { availableParallelism, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { ApiEvent, EnvInfo, Envelope, Method, ParsedParams, Results } from '../api/contract.js';
import { parseRequest } from '../api/contract.js';
import { parseBuildConfig } from '../api/build-config.js';
import { exportFieldsOf } from '../export/file-fields.js';
import { buildToPython, loaderToPython } from '../export/python.js';
import { decodePath } from '../native/turbo.js';
import { gpuInventory } from '../profile/gpu-sampler.js';
import { execOutcome, runExec } from '../profile/exec-mode.js';
import { failedSweepRun } from '../profile/failed-run.js';
import type { PointResult, ProfileRun, TelemetrySample } from '../profile/types.js';
import { machineInfo } from '../profile/machine.js';
import { profile, tryDatasetInfo } from '../profile/sweep.js';
import { defaultDbPath, RunsDb } from '../runs/runs-db.js';
import { openSource } from '../sources/open-source.js';
import { buildDataset, buildFields } from '../writer/build.js';
import { detectSourceConfig } from '../sources/open-source.js';
import { inspectDataset, previewDataset } from './dataset-views.js';
import { FsAccess } from './fs-access.js';
import type { ReadGuard } from '../sources/read-guard.js';
import { JobFailed, JobManager } from './jobs.js';
import { packageVersion } from './package-version.js';
import { apiErrorOf, ServiceError } from './service-error.js';
import { checkBuildOutput } from '../writer/output-guard.js';

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
  private readonly jobs: JobManager;
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  private db: RunsDb | null = null;

  constructor(private readonly opts: ServiceOptions) {
    this.fs = new FsAccess(opts.roots);
    this.readGuard = this.fs.readGuard();
    this.allowExec = opts.allowExec ?? opts.host === 'electron';
    this.jobs = new JobManager((e) => this.emit(e));
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

  private mayExec(): void {
    if (!this.allowExec) throw new ServiceError('EXEC_DISABLED', EXEC_DISABLED_MESSAGE);
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
      const source = await detectSourceConfig(path, { imageColumn: p.imageColumn, clipLength: p.clipLength ?? 16, stride: p.stride, fps: p.fps ?? null, ...guard });
      const src = await openSource(source, dirname(path), guard);
      const fields = await src.detectSchema();
      return { source, fields, length: src.length };
    },
    'datasets.inspect': async (p) => inspectDataset(this.fs.check(p.path)),
    'datasets.preview': async (p) => previewDataset(this.fs.check(p.path), p.start, p.count, p.thumb, { ...(p.label !== undefined ? { label: p.label } : {}), ...(p.labelField ? { labelField: p.labelField } : {}) }),
    'builds.start': async (p) => {
      // A video source's own ffmpeg is a program the client names: a command like --exec.
      if ('ffmpeg' in p.config.source && p.config.source.ffmpeg !== undefined) this.mayExec();
      const config = { ...p.config, source: { ...p.config.source, path: this.fs.check(p.config.source.path) }, output: this.fs.check(p.config.output, { mustExist: false }) };
      // Refused before a job exists (the client gets OUTPUT_EXISTS / OUTPUT_IS_INPUT, not a failed job).
      const overwrite = p.overwrite ?? false;
      await checkBuildOutput(config, process.cwd(), { overwrite });
      const readGuard = this.readGuard;
      const jobId = this.jobs.start('build', async ({ signal, progress }) => {
        const report = await buildDataset(config, { signal, overwrite, ...(readGuard ? { readGuard } : {}), onProgress: (x) => progress({ done: x.done, total: x.total, rate: x.samplesPerSec, etaMs: x.etaMs, elapsedMs: x.elapsedMs }) });
        try {
          const db = this.runs();
          const { datasetInfo } = await import('../profile/sweep.js');
          db.recordBuild(db.recordDataset(datasetInfo(report.path)), config, report);
          this.emit({ event: 'runs:changed', data: {} });
        } catch {
          // The dataset is written; a database problem must not turn the build into a failure.
        }
        return report;
      });
      return { jobId };
    },
    'builds.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId) }),
    'builds.advise': async (p) => {
      const { adviseBuild } = await import('../app/build-advice.js');
      const config = { ...p.config, source: { ...p.config.source, path: this.fs.check(p.config.source.path) } };
      return adviseBuild(config, { sample: p.sample, seed: p.seed, loaderSize: p.loaderSize, previewItems: p.previewItems, ...(this.readGuard ? { readGuard: this.readGuard } : {}) });
    },
    'profiles.start': async (p) => {
      // Refused before a job exists, so the client gets the code (403), not a failed job.
      const file = 'plan' in p ? this.fs.check(p.plan.file) : '';
      // A command's dataset is read too (its content hash identifies it in Runs): confined alike.
      const execFile = 'exec' in p && p.exec.file ? this.fs.check(p.exec.file) : null;
      if ('exec' in p) this.mayExec();
      // The run is stored at the end: a database that cannot take it fails now, not after the sweep.
      this.runs();
      const jobId = this.jobs.start('profile', async ({ signal, progress, sample }) => {
        const startedAt = new Date().toISOString();
        if ('plan' in p) {
          // Kept as they come, so a sweep that fails is recorded with what it had measured.
          const points: PointResult[] = [];
          const samples: TelemetrySample[] = [];
          let run: ProfileRun;
          try {
            run = await profile(
              { ...p.plan, file },
              {
                signal,
                onSample: (s) => {
                  samples.push(s);
                  sample(s);
                },
                onPoint: (pt, done, total) => {
                  points.push(pt);
                  progress({ done, total, rate: 0, etaMs: null, message: `point ${done} of ${total}` });
                },
              },
            );
          } catch (e) {
            if (!signal.aborted) {
              this.runs().saveRun(await failedSweepRun({ ...p.plan, file }, startedAt, e, points, samples));
              this.emit({ event: 'runs:changed', data: {} });
            }
            throw e;
          }
          const id = this.runs().saveRun(run);
          this.emit({ event: 'runs:changed', data: {} });
          return { runId: id, verdict: run.verdict, points: run.points };
        }
        const machine = await machineInfo();
        const res = await runExec({ command: p.exec.command, throughputRegex: p.exec.throughputRegex, signal, onSample: (s) => sample(s) });
        const { status, failure } = execOutcome(res);
        const id = this.runs().saveRun({
          kind: 'exec',
          startedAt,
          finishedAt: new Date().toISOString(),
          status,
          failure,
          plan: { command: p.exec.command, throughputRegex: p.exec.throughputRegex, file: execFile },
          machine,
          dataset: execFile ? tryDatasetInfo(execFile) : null,
          points: [],
          samples: res.samples,
          verdict: null,
        });
        this.emit({ event: 'runs:changed', data: {} });
        const result = { runId: id, exitCode: res.exitCode, signal: res.signal, imagesTotal: res.imagesTotal, seconds: res.seconds, stderrTail: res.stderrTail, failure: failure?.message ?? null };
        // A command that exits non-zero failed, whatever it printed: the job says so, with its exit code and stderr.
        if (failure) return new JobFailed('EXEC_FAILED', `${failure.message}${res.stderrTail.length ? `: ${res.stderrTail[res.stderrTail.length - 1]}` : ''}`, result);
        return result;
      });
      return { jobId };
    },
    'profiles.cancel': async (p) => ({ cancelled: this.jobs.cancel(p.jobId) }),
    'runs.list': async (p) => this.runs().listRuns({ limit: p.limit }),
    'runs.get': async (p) => {
      const run = this.runs().getRun(p.id);
      if (!run) throw new ServiceError('NOT_FOUND', `no run ${p.id}`);
      return run;
    },
    'runs.compare': async (p) => this.runs().compare(p.a, p.b),
    'runs.delete': async (p) => {
      const deleted = this.runs().deleteRun(p.id);
      if (deleted) this.emit({ event: 'runs:changed', data: {} });
      return { deleted };
    },
    'export.generate': async (p) => {
      if (p.format === 'json') return { text: JSON.stringify({ ...(p.build ? { build: p.build } : {}), ...(p.loader ? { loader: p.loader } : {}) }, null, 2), language: 'json' };
      const parts: string[] = [];
      if (p.build) {
        const checked = parseBuildConfig(p.build);
        if (!checked.ok) throw new ServiceError('BAD_REQUEST', checked.errors.join('; '));
        const fields = checked.value.fields ?? (await buildFields(checked.value, await openSource({ ...checked.value.source, path: this.fs.check(checked.value.source.path) }, process.cwd(), this.readGuard ? { readGuard: this.readGuard } : {})));
        parts.push(buildToPython(checked.value, fields));
      }
      if (p.loader) {
        // The file's fields (video clips need custom_fields in FFCV), when it lies in the
        // served folders; otherwise the code is written from the config alone.
        let fields: Awaited<ReturnType<typeof exportFieldsOf>>;
        try {
          fields = await exportFieldsOf(this.fs.check(p.loader.file));
        } catch {
          fields = undefined;
        }
        parts.push(loaderToPython(p.loader, fields ? { fields } : {}));
      }
      return { text: parts.join('\n\n'), language: 'python' };
    },
  };
}

import { RGB_IMAGE_IDENTITY } from '../fields/rgb-image-field.js';
import { resolve } from 'node:path';
import type { BuildConfig, FieldConfig } from '../api/build-config.js';
import type { BuildReport } from '../api/build-report.js';
import { fieldFromSpec } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import type { DatasetSource } from '../sources/common/source.js';
import type { StreamTarget } from '../writer/output-file.js';
import { DatasetWriter, type WriteProgress } from '../writer/dataset-writer.js';
import { BuildSource } from './build-source.js';
import { checkBuildOutput, type OutputGuardOptions } from './output-guard.js';
import { replaceFile } from '../writer/replace-file.js';
import { selectSlice } from '../writer/selection.js';
import { progressPathFor, ShardProgressFile } from '../writer/shard-progress.js';
import { classNamesOf, labelMappingsOf, writeSidecarManifest } from '../writer/sidecar-manifest.js';
import { manifestPathFor } from '../api/dataset-manifest.js';
import type { BuildRecorder } from './record-build.js';

export interface BuildOptions {
  signal?: AbortSignal;
  onProgress?: (p: WriteProgress) => void;
  /** Resolve relative paths in the config from here (the config file's folder). */
  baseDir?: string;
  /** beton serve: the files the source reads must stay inside the served folders (sources/common/read-guard.ts). */
  readGuard?: ReadGuard;
  /**
   * Replace an existing output (default true, as DatasetWriter; the CLI passes --force and
   * the app its `overwrite`, both off by default). An output that is an input is refused either way.
   */
  overwrite?: boolean;
  /** Other files the build reads (a config file): the output must not be one of them. */
  inputs?: readonly string[];
}

export type { BuildReport };

/**
 * A build whose output passed the guard (core/app/output-guard.ts): made only by
 * guardBuild, taken by runBuild, so the guard runs once per build whatever front end
 * starts it, and before any work (a job, schema detection, workers). It carries what the
 * build needs resolved once: the output path (the guard, the write, the report and the
 * CLI's cleanup all use this one) and the build's source, opened at most once (build-source.ts).
 */
export interface GuardedOutput {
  /** The output, resolved from `baseDir`. */
  readonly output: string;
  readonly source: BuildSource;
  readonly baseDir: string;
  /** The config's output as given: runBuild checks its config is this one (without resolving it again). */
  readonly given: string;
}
const guarded = new WeakSet<GuardedOutput>();

export interface GuardBuildOptions extends OutputGuardOptions {
  /** The build's source when planning made it (planBuild: detection's table comes along); else made here. */
  source?: BuildSource;
  /** beton serve: the files the source reads must stay inside the served folders (sources/common/read-guard.ts). */
  readGuard?: ReadGuard;
}

export async function guardBuild(
  config: Pick<BuildConfig, 'source' | 'output'>,
  baseDir: string,
  opts: GuardBuildOptions,
): Promise<GuardedOutput> {
  const source = opts.source ?? new BuildSource(config.source, baseDir, opts.readGuard ? { readGuard: opts.readGuard } : {});
  if (source.config.path !== config.source.path || source.baseDir !== baseDir)
    throw new Error("guardBuild: the source is not the config's"); // a programming error, not a user's
  const output = resolve(baseDir, config.output);
  const paths = { output, source: resolve(baseDir, config.source.path), inputs: (opts.inputs ?? []).map((p) => resolve(baseDir, p)) };
  await checkBuildOutput(config, paths, source, opts);
  const g: GuardedOutput = Object.freeze({ output, source, baseDir, given: config.output });
  guarded.add(g);
  return g;
}

/** What a run adds to guarding: where progress goes, cancelling, recording. */
export interface RunBuildOptions {
  signal?: AbortSignal;
  onProgress?: (p: WriteProgress) => void;
  /** Records the finished build in the runs database (record-build.ts); a failure there is a note, not a failed build. */
  record?: BuildRecorder;
  /** Stream the output as it is written (`build -o s3://…`: an S3 multipart upload); see DatasetWriterOptions.stream. */
  stream?: StreamTarget;
}

export interface BuildOutcome {
  report: BuildReport;
  /** Why the build is not in the runs database (it was asked to be), else null. */
  recordNote: string | null;
}

/**
 * Runs a guarded build: the one path for the CLI (`beton build`), the app (`builds.start`)
 * and a sharded build's tasks. A shard keeps its OUT.progress.json (beton build --status)
 * up to date; a finished build is recorded when `record` is given.
 */
export async function runBuild(config: BuildConfig, guard: GuardedOutput, opts: RunBuildOptions = {}): Promise<BuildOutcome> {
  if (!guarded.has(guard) || config.output !== guard.given || config.source.path !== guard.source.config.path)
    throw new Error('runBuild: the config is not the one its output guard checked'); // a programming error, not a user's
  const progressFile = config.shard ? new ShardProgressFile(progressPathFor(guard.output), config.shard, guard.output) : null;
  let report: BuildReport;
  try {
    report = await writeDataset(config, guard, {
      ...opts,
      onProgress: (p) => {
        opts.onProgress?.(p);
        progressFile?.update(p);
      },
    });
  } catch (e) {
    progressFile?.fail(e);
    throw e;
  }
  progressFile?.finish(report);
  const recordNote = opts.record ? await opts.record(config, report) : null;
  return { report, recordNote };
}

/** The fields a build writes: the config's, or the source's detected schema with the config's image options. */
export async function buildFields(config: BuildConfig, source: DatasetSource): Promise<FieldConfig[]> {
  if (config.fields) return config.fields;
  const detected = await source.detectSchema();
  return detected.map((f) => (f.type === RGB_IMAGE_IDENTITY.type && config.image ? ({ ...f, ...config.image } as FieldConfig) : f));
}

export function toNamedFields(fields: readonly FieldConfig[]): NamedField[] {
  return fields.map((f) => {
    const { name, columns: _columns, ...spec } = f;
    return { name, field: fieldFromSpec(spec) };
  });
}

/**
 * The library's one call: guard, then run a validated build config (source → schema →
 * slice → DatasetWriter → report), not recorded. Front ends use guardBuild + runBuild.
 */
export async function buildDataset(config: BuildConfig, opts: BuildOptions = {}): Promise<BuildReport> {
  const base = opts.baseDir ?? process.cwd();
  const guard = await guardBuild(config, base, {
    overwrite: opts.overwrite ?? true,
    ...(opts.inputs ? { inputs: opts.inputs } : {}),
    ...(opts.readGuard ? { readGuard: opts.readGuard } : {}),
  });
  const { baseDir: _b, overwrite: _o, inputs: _i, readGuard: _g, ...run } = opts;
  return (await runBuild(config, guard, run)).report;
}

async function writeDataset(
  config: BuildConfig,
  guard: GuardedOutput,
  opts: Pick<RunBuildOptions, 'signal' | 'onProgress' | 'stream'>,
): Promise<BuildReport> {
  const source = await guard.source.open();
  const output = guard.output;
  const fieldConfigs = await buildFields(config, source);
  // A streamed source (WebDataset shards) counts its samples only when a --shard slice needs
  // the total, or a streamed output (its head's size, known up front, lets pages stream).
  const length = source.length ?? ((config.shard || opts.stream) && source.countSamples ? await source.countSamples() : null);
  const slice = selectSlice(length, config.range, config.shard);
  const writer = new DatasetWriter(output, toNamedFields(fieldConfigs), {
    pageSize: config.pageSize,
    numWorkers: config.numWorkers,
    chunkSize: config.chunkSize,
    seed: config.seed,
    sampleIndexBase: slice.start,
    onError: config.onError,
    baseDir: source.baseDir,
    signal: opts.signal,
    onProgress: opts.onProgress,
    ...(opts.stream ? { stream: opts.stream } : {}),
    ...(slice.end !== null ? { numSamples: slice.end - slice.start } : {}),
  });
  const report = await writer.write(source.samples(fieldConfigs, { start: slice.start, end: slice.end ?? Number.POSITIVE_INFINITY }));
  const items = report.numSamples + report.skipped.length;
  let reportPath: string | null = null;
  if (report.skipped.length > 0) {
    reportPath = `${output}.skipped.json`;
    const doc = {
      output,
      source: source.path,
      written: report.numSamples,
      skipped: report.skipped.map(({ index, source: s, field, reason }) => ({ index, path: s ?? null, field: field ?? null, reason })),
    };
    // Replaced, not written through: a link at this name must not send the report elsewhere.
    await replaceFile(reportPath, JSON.stringify(doc, null, 2) + '\n');
  }
  const srcBytes = report.sourceBytes || (slice.start === 0 && slice.end === source.length ? (source.sourceBytes?.() ?? 0) : 0);
  const result: BuildReport = {
    ...report,
    // The writer counts the bytes of the images it read; a table or video source counts its
    // own files: the report names the same bytes its ratio divides by (never "0 B of sources").
    sourceBytes: srcBytes,
    source: { kind: source.kind, path: source.path, items },
    compressionRatio: srcBytes > 0 ? srcBytes / report.fileSize : null,
    passThrough: Object.values(report.imageModes).reduce((s, m) => s + m.passThrough, 0),
    reportPath,
  };
  // After the .beton's rename (the manifest holds its content hash); if it fails, neither stays.
  await writeSidecarManifest(output, {
    config,
    report: result,
    classNames: classNamesOf(source, fieldConfigs),
    labelMappings: labelMappingsOf(fieldConfigs),
  });
  return { ...result, manifestPath: manifestPathFor(output) };
}

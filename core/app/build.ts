import { resolve } from 'node:path';
import type { BuildConfig, FieldConfig } from '../api/build-config.js';
import type { BuildReport } from '../api/build-report.js';
import { fieldFromSpec } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import { openSource } from '../sources/open-source.js';
import type { ReadGuard } from '../sources/read-guard.js';
import type { DatasetSource } from '../sources/source.js';
import { DatasetWriter, type WriteProgress } from '../writer/dataset-writer.js';
import { checkBuildOutput } from './output-guard.js';
import { replaceFile } from '../writer/replace-file.js';
import { selectSlice } from '../writer/selection.js';
import { classNamesOf, labelMappingsOf, writeSidecarManifest } from '../writer/sidecar-manifest.js';

export interface BuildOptions {
  signal?: AbortSignal;
  onProgress?: (p: WriteProgress) => void;
  /** Resolve relative paths in the config from here (the config file's folder). */
  baseDir?: string;
  /** beton serve: the files the source reads must stay inside the served folders (sources/read-guard.ts). */
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

/** The fields a build writes: the config's, or the source's detected schema with the config's image options. */
export async function buildFields(config: BuildConfig, source: DatasetSource): Promise<FieldConfig[]> {
  if (config.fields) return config.fields;
  const detected = await source.detectSchema();
  return detected.map((f) => (f.type === 'rgb_image' && config.image ? ({ ...f, ...config.image } as FieldConfig) : f));
}

export function toNamedFields(fields: readonly FieldConfig[]): NamedField[] {
  return fields.map((f) => {
    const { name, columns: _columns, ...spec } = f;
    return { name, field: fieldFromSpec(spec) };
  });
}

/** Runs a validated build config: source → schema → slice → DatasetWriter → report. */
export async function buildDataset(config: BuildConfig, opts: BuildOptions = {}): Promise<BuildReport> {
  const base = opts.baseDir ?? process.cwd();
  // Before any work: an output that would destroy an input, or an existing file not to be replaced.
  await checkBuildOutput(config, base, { overwrite: opts.overwrite ?? true, ...(opts.inputs ? { inputs: opts.inputs } : {}) });
  const source = await openSource(
    { ...config.source, path: resolve(base, config.source.path) },
    base,
    opts.readGuard ? { readGuard: opts.readGuard } : {},
  );
  const fieldConfigs = await buildFields(config, source);
  // A streamed source (WebDataset shards) counts its samples only when a --shard slice needs the total.
  const length = source.length ?? (config.shard && source.countSamples ? await source.countSamples() : null);
  const slice = selectSlice(length, config.range, config.shard);
  const output = resolve(base, config.output);
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
  return result;
}

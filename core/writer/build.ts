import { dirname, resolve } from 'node:path';
import type { BuildConfig } from '../api/build-config.js';
import { fieldFromSpec } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import { ImageFolderSource } from '../sources/image-folder.js';
import { DatasetWriter, type WriteProgress, type WriteReport } from './dataset-writer.js';

export interface BuildOptions {
  signal?: AbortSignal;
  onProgress?: (p: WriteProgress) => void;
  /** Resolve relative paths in the config from here (the config file's folder). */
  baseDir?: string;
}

/** Runs a validated build config: source → schema → DatasetWriter. */
export async function buildDataset(config: BuildConfig, opts: BuildOptions = {}): Promise<WriteReport> {
  const base = opts.baseDir ?? process.cwd();
  const sourcePath = resolve(base, config.source.path);
  const source = new ImageFolderSource(sourcePath);
  const fields: NamedField[] = config.fields
    ? config.fields.map(({ name, ...spec }) => ({ name, field: fieldFromSpec(spec) }))
    : source.schema(config.image ?? {});
  const output = resolve(base, config.output);
  const writer = new DatasetWriter(output, fields, {
    pageSize: config.pageSize,
    numWorkers: config.numWorkers,
    chunkSize: config.chunkSize,
    seed: config.seed,
    baseDir: dirname(output),
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  return writer.write(source);
}

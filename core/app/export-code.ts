/**
 * Export as `beton export` and the app's Export screen do it: a build config becomes the
 * Python FFCV DatasetWriter code that builds the same file, a loader config the Loader code
 * that loads it the same way. Paths come resolved (and, in `beton serve`, confined) by the caller.
 */
import type { BuildConfig, FieldConfig } from '../api/build-config.js';
import type { LoaderConfig } from '../api/loader-config.js';
import { exportFieldsOf } from '../export/file-fields.js';
import { buildToPython, loaderToPython } from '../export/python.js';
import { openSource } from '../sources/open-source.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import { buildFields } from './build.js';

export interface BuildExportOptions {
  /** beton serve: what the source may read (sources/common/read-guard.ts). */
  readGuard?: ReadGuard;
  /** Where to open the source (beton serve: the checked path); the code keeps the config's. */
  sourcePath?: string;
}

/**
 * The writer code for a build config, with the fields it writes: the config's own, else the
 * source's detected schema (the source is opened only then).
 */
export async function buildExport(
  config: BuildConfig,
  baseDir: string,
  opts: BuildExportOptions = {},
): Promise<{ text: string; fields: FieldConfig[] }> {
  const source = opts.sourcePath === undefined ? config.source : { ...config.source, path: opts.sourcePath };
  const fields =
    config.fields ?? (await buildFields(config, await openSource(source, baseDir, opts.readGuard ? { readGuard: opts.readGuard } : {})));
  return { text: buildToPython(config, fields), fields };
}

/**
 * The loader code for a loader config. `fieldsFrom`: the .beton to read the fields from
 * (video clips need their Field class in FFCV; ndarray dtypes decide how a batch is held);
 * null, or a file that cannot be opened, writes the code from the config alone. `origin`: the
 * profile run and point the settings came from, named in the code (export-loader.ts).
 */
export async function loaderExport(config: LoaderConfig, fieldsFrom: string | null, origin?: string): Promise<string> {
  const fields = fieldsFrom === null ? undefined : await exportFieldsOf(fieldsFrom);
  return loaderToPython(config, { ...(fields ? { fields } : {}), ...(origin ? { origin } : {}) });
}

/** Writer and loader code as one Python text. */
export const joinCode = (parts: readonly string[]): string => parts.join('\n\n');

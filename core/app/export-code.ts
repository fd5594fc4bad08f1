/**
 * Export as `beton export` and the app's Export screen do it: a build config becomes the
 * Python FFCV DatasetWriter code that builds the same file, a loader config the Loader code
 * that loads it the same way. Paths come resolved (and, in `beton serve`, confined) by the caller.
 */
import { parseBuildConfig, type BuildConfig, type FieldConfig } from '../api/build-config.js';
import type { ParsedParams, Results } from '../api/contract.js';
import type { StoredRun } from '../api/runs-model.js';
import { BetonError } from '../format/errors.js';
import type { LoaderConfig } from '../api/loader-config.js';
import { exportFieldsOf } from '../export/file-fields.js';
import { buildToPython, loaderToPython } from '../export/python.js';
import { openSource } from '../sources/open-source.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import { buildFields } from './build.js';
import { runOrigin } from './export-loader.js';

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

/** Where an export request's paths and run lead (the service confines them; core/services/beton-service.ts). */
export interface ExportPlaces {
  /** The build's source as it may be opened (beton serve: the checked path); throws when refused. */
  sourcePath: (path: string) => string;
  /** The .beton the loader code reads its fields from, or null (not allowed here: the code comes from the config alone). */
  fieldsFrom: (file: string) => string | null;
  /** A stored run (NOT_FOUND when it is gone). */
  run: (id: number) => StoredRun;
  readGuard?: ReadGuard;
}

/**
 * The Export screen's request (`export.generate`): the configs as JSON, or the writer and
 * loader code as one Python text; the loader code names the run and point its settings came
 * from. A build config that does not validate is BAD_REQUEST, naming what is wrong.
 */
export async function generateExport(request: ParsedParams<'export.generate'>, places: ExportPlaces): Promise<Results['export.generate']> {
  const { build, loader, from } = request;
  if (request.format === 'json')
    return { text: JSON.stringify({ ...(build ? { build } : {}), ...(loader ? { loader } : {}) }, null, 2), language: 'json' };
  const parts: string[] = [];
  if (build) {
    const checked = parseBuildConfig(build);
    if (!checked.ok) throw new BetonError('BAD_REQUEST', checked.errors.join('; '));
    // The source is read (and so checked) only when the config does not list its fields.
    const sourcePath = checked.value.fields ? undefined : places.sourcePath(checked.value.source.path);
    const readGuard = places.readGuard;
    parts.push((await buildExport(checked.value, process.cwd(), { sourcePath, ...(readGuard ? { readGuard } : {}) })).text);
  }
  if (loader) {
    // Named in the code: the run and point the settings came from (NOT_FOUND for a run that is gone).
    const fieldsFrom = places.fieldsFrom(loader.file);
    const origin = from ? runOrigin(places.run(from.run), from.run, from.point) : undefined;
    parts.push(await loaderExport(loader, fieldsFrom, origin));
  }
  return { text: joinCode(parts), language: 'python' };
}

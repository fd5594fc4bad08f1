import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { BuildConfig } from '../api/build-config.js';
import { BetonEncodeError } from '../format/errors.js';
import type { DatasetSource } from '../sources/common/source.js';
import { TableSource } from '../sources/tables/table-source.js';
import { VideoDatasetSource } from '../sources/video/video-source.js';
import type { BuildSource } from './build-source.js';

export interface OutputGuardOptions {
  /** Replace an existing output (CLI --force, the app's `overwrite`). Default false. */
  overwrite?: boolean;
  /** Other files the build reads (the --config file), which the output must not replace either. */
  inputs?: readonly string[];
}

/** The real path of `p`, or of its folder plus its name when `p` does not exist yet; null when neither resolves. */
function realOrPlanned(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    try {
      return join(realpathSync(dirname(p)), basename(p));
    } catch {
      return null;
    }
  }
}

function kindOf(p: string): 'file' | 'dir' | null {
  try {
    return statSync(p).isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** A build's paths, resolved from its base folder once (guardBuild). */
export interface ResolvedPaths {
  output: string;
  source: string;
  /** `OutputGuardOptions.inputs`, resolved. */
  inputs: readonly string[];
}

const isInside = (child: string, folder: string): boolean => child.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * Refuses, before any work, a build whose output would destroy an input or another file:
 * the output is the source itself (or the --config file), lies inside an image or video
 * source folder (it would replace an image, or be read by the next build of that folder),
 * is a path an image or video list names (checked only when the output exists, since only
 * then can it be replaced), is a folder, or exists and `overwrite` is not set.
 * Paths are compared after resolving symbolic links; `paths` are as guardBuild resolved them
 * (once, for the whole build), `opened` is the build's source, which
 * a list is read from (opened here only in that case, and not again by the build).
 */
export async function checkBuildOutput(
  config: Pick<BuildConfig, 'source' | 'output'>,
  paths: ResolvedPaths,
  opened: BuildSource,
  opts: OutputGuardOptions = {},
): Promise<void> {
  const { output: out, source } = paths;
  const realOut = realOrPlanned(out);
  if (realOut === null) return; // its folder is missing: the write reports that with the path
  const realSource = realOrPlanned(source);
  const refuse = (why: string): never => {
    throw new BetonEncodeError(
      'OUTPUT_IS_INPUT',
      `the output ${out} ${why}; building would destroy it. Write the .beton file somewhere else (-o)`,
      { source },
    );
  };
  if (realSource !== null && realOut === realSource)
    refuse(`is the source ${config.source.type === 'image_folder' || config.source.type === 'video_folder' ? 'folder' : 'file'} itself`);
  for (const p of paths.inputs) if (realOrPlanned(p) === realOut) refuse(`is the build config ${p}`);
  if (
    realSource !== null &&
    (config.source.type === 'image_folder' || config.source.type === 'video_folder') &&
    isInside(realOut, realSource)
  ) {
    refuse(`is inside the source folder ${source} (it would replace a source file, or be read by the next build of that folder)`);
  }
  const existing = kindOf(realOut);
  if (existing === 'dir') {
    throw new BetonEncodeError('BAD_OPTIONS', `the output ${out} is a folder; give a file name, e.g. ${join(out, 'data.beton')}`, {
      source,
    });
  }
  if (existing === null) return;
  if (!opts.overwrite) {
    throw new BetonEncodeError(
      'OUTPUT_EXISTS',
      `${out} already exists; choose another output or pass --force (overwrite: true) to replace it`,
      { source },
    );
  }
  // Replacing is asked for: the one case left is a file a list names as an input.
  if (config.source.type === 'image_list' && (await listNames(opened, config.source.imageColumn, realOut))) {
    refuse(`is an image that ${source} lists`);
  }
  if (config.source.type === 'video_list' && (await videoListNames(opened, realOut))) refuse(`is a video that ${source} lists`);
}

/** The opened source, or null when it does not open: the build reports that (the same failure, kept by BuildSource). */
async function openedOrNull(opened: BuildSource): Promise<DatasetSource | null> {
  try {
    return await opened.open();
  } catch {
    return null;
  }
}

/** Whether a list entry, resolved from the list's folder (and through links), is the file at `realOut`. */
function sameFile(entry: string, listDir: string, realOut: string): boolean {
  const p = isAbsolute(entry) ? entry : join(listDir, entry);
  return p === realOut || realOrPlanned(p) === realOut;
}

/** Streams the image column of a list (one pass, that column only) looking for `realOut`. */
async function listNames(opened: BuildSource, column: string, realOut: string): Promise<boolean> {
  const list = await openedOrNull(opened);
  if (!(list instanceof TableSource)) return false;
  const reader = list.reader;
  const col = reader.columns.indexOf(column);
  if (col < 0) return false;
  const listDir = dirname(resolve(reader.path));
  for await (const row of reader.rows({ start: 0, end: Number.POSITIVE_INFINITY }, [col])) {
    const v = row.values[col];
    if (typeof v === 'string' && v !== '' && sameFile(v, listDir, realOut)) return true;
  }
  return false;
}

async function videoListNames(opened: BuildSource, realOut: string): Promise<boolean> {
  const list = await openedOrNull(opened);
  if (!(list instanceof VideoDatasetSource)) return false;
  const listDir = dirname(resolve(list.path));
  return list.items.some((it) => it.error === undefined && sameFile(it.path, listDir, realOut));
}

import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { BuildConfig } from '../api/build-config.js';
import { BetonEncodeError } from '../format/errors.js';
import { openTableReader } from '../sources/tables/open-table.js';
import type { TableReader } from '../sources/common/table-reader.js';
import { readVideoList } from '../sources/video/video-folder.js';

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

const isInside = (child: string, folder: string): boolean => child.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * Refuses, before any work, a build whose output would destroy an input or another file:
 * the output is the source itself (or the --config file), lies inside an image or video
 * source folder (it would replace an image, or be read by the next build of that folder),
 * is a path an image or video list names (checked only when the output exists, since only
 * then can it be replaced), is a folder, or exists and `overwrite` is not set.
 * Paths are compared after resolving symbolic links. Relative paths resolve from `baseDir`.
 */
export async function checkBuildOutput(
  config: Pick<BuildConfig, 'source' | 'output'>,
  baseDir: string,
  opts: OutputGuardOptions = {},
): Promise<void> {
  const out = resolve(baseDir, config.output);
  const realOut = realOrPlanned(out);
  if (realOut === null) return; // its folder is missing: the write reports that with the path
  const source = resolve(baseDir, config.source.path);
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
  for (const p of opts.inputs ?? [])
    if (realOrPlanned(resolve(baseDir, p)) === realOut) refuse(`is the build config ${resolve(baseDir, p)}`);
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
  if (config.source.type === 'image_list' && (await listNames(source, config.source.imageColumn, config.source.format, realOut))) {
    refuse(`is an image that ${source} lists`);
  }
  if (config.source.type === 'video_list' && videoListNames(source, config.source.format, realOut))
    refuse(`is a video that ${source} lists`);
}

/** Whether a list entry, resolved from the list's folder (and through links), is the file at `realOut`. */
function sameFile(entry: string, listDir: string, realOut: string): boolean {
  const p = isAbsolute(entry) ? entry : join(listDir, entry);
  return p === realOut || realOrPlanned(p) === realOut;
}

/** Streams the image column of a list (one pass, that column only) looking for `realOut`. */
async function listNames(list: string, column: string, format: 'csv' | 'tsv' | 'jsonl' | undefined, realOut: string): Promise<boolean> {
  let reader: TableReader;
  try {
    reader = await openTableReader(list, format);
  } catch {
    return false; // the build reports an unreadable list
  }
  const col = reader.columns.indexOf(column);
  if (col < 0) return false;
  const listDir = dirname(resolve(list));
  for await (const row of reader.rows({ start: 0, end: Number.POSITIVE_INFINITY }, [col])) {
    const v = row.values[col];
    if (typeof v === 'string' && v !== '' && sameFile(v, listDir, realOut)) return true;
  }
  return false;
}

function videoListNames(list: string, format: 'csv' | 'jsonl' | undefined, realOut: string): boolean {
  try {
    return readVideoList(list, format).items.some((it) => it.error === undefined && sameFile(it.path, dirname(resolve(list)), realOut));
  } catch {
    return false;
  }
}

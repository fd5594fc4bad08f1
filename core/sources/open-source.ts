import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { SourceConfig } from '../api/build-config.js';
import { BetonEncodeError, NotAFileError, OptionsError } from '../format/errors.js';
import { ImageFolderDatasetSource } from './images/image-folder-source.js';
import { openImageListSource } from './images/image-list-source.js';
import { findImageColumns } from './tables/image-columns.js';
import { openTableReader, resolveTableFormat, tableFormatOf } from './tables/open-table.js';
import type { ReadGuard } from './common/read-guard.js';
import type { DatasetSource } from './common/source.js';
import { TableSource, type TableSourceOptions } from './tables/table-source.js';
import type { TableReader } from './common/table-reader.js';
import { openManyTables } from './tables/many-tables.js';
import { expandPathPattern, folderFiles, isPathPattern } from './common/path-patterns.js';
import { looksLikeVideoFolder } from './video/video-folder.js';
import { isShardName, looksLikeShardList, WebDatasetSource } from './webdataset/webdataset-source.js';
import { VideoDatasetSource, type VideoSourceOptions } from './video/video-source.js';
import { fileKind } from '../native/regular-file.js';

/** Rows looked at to decide whether a table is an image list. */
const DETECT_ROWS = 200;

export interface OpenSourceOptions {
  /** String columns of detected schemas become json (default) or bytes fields. */
  strings?: TableSourceOptions['strings'];
  /**
   * beton serve: every file the source reads besides `config.path` (image paths in rows,
   * class folders, listed videos) must pass it; the CLI passes none (read-guard.ts).
   */
  readGuard?: ReadGuard;
  /**
   * The table detection opened for this path (detectSourceAndTable): a table or image list
   * source reads it instead of opening the file again (a CSV's open reads it through to count
   * its rows). A reader of another path is not used.
   */
  table?: TableReader | null;
}

/**
 * Opens the source a build config names; relative paths resolve from `baseDir` (the
 * config file's folder). Tables take their format from `format` or the extension.
 */
export async function openSource(config: SourceConfig, baseDir: string, opts: OpenSourceOptions = {}): Promise<DatasetSource> {
  if (config.type === 'webdataset') return WebDatasetSource.open(config.path, baseDir, opts.readGuard ? { readGuard: opts.readGuard } : {});
  if (config.type === 'table' && isPathPattern(config.path))
    return openManyTables(config.path, baseDir, config.format, opts.strings, opts.readGuard);
  const path = resolve(baseDir, config.path);
  await mustExist(path, config.type === 'image_folder' || config.type === 'video_folder' ? 'folder' : 'file');
  const guard = opts.readGuard ? { readGuard: opts.readGuard } : {};
  const infer: TableSourceOptions = { ...(opts.strings ? { strings: opts.strings } : {}), ...guard };
  const opened = opts.table?.path === path ? opts.table : undefined;
  switch (config.type) {
    case 'image_folder':
      return ImageFolderDatasetSource.open(path, guard);
    case 'image_list':
      return openImageListSource(path, config.imageColumn, config.format, infer, opened);
    case 'table':
      return new TableSource(opened ?? (await openTableReader(path, config.format)), infer);
    case 'video_folder':
      return VideoDatasetSource.openFolder(path, { ...videoOptions(config), ...guard });
    case 'video_list':
      return VideoDatasetSource.openList(path, { ...videoOptions(config), ...guard, ...(config.format ? { format: config.format } : {}) });
  }
}

function videoOptions(c: Extract<SourceConfig, { type: 'video_folder' | 'video_list' }>): VideoSourceOptions {
  return { clipLength: c.clipLength, ...(c.stride ? { stride: c.stride } : {}), fps: c.fps, ...(c.ffmpeg ? { ffmpeg: c.ffmpeg } : {}) };
}

/** What detection is told besides the path: an image column, or a video clipping. */
export interface DetectOptions {
  imageColumn?: string;
  /** Frames per clip: with it, a folder is a folder of videos and a .csv/.jsonl a list of videos. */
  clipLength?: number;
  /** Without clipLength: the clip length a folder that holds videos gets (the app's proposal), instead of a refusal. */
  proposedClipLength?: number;
  stride?: number;
  fps?: number | null;
  ffmpeg?: string;
  readGuard?: ReadGuard;
}

/**
 * The source config for a path given on its own (the CLI's SOURCE, the app's picked path):
 * - with a clip length, a folder of videos (root/<class>/<video>) or a CSV/JSONL video list;
 *   without one, a folder that holds videos is refused with what to give;
 * - shards (a .tar, a folder of them, a pattern or a list of shard names) are WebDataset;
 * - a folder is an ImageFolder; a table file is an image list when `imageColumn` is given or
 *   a CSV/TSV/JSONL column holds image paths (the first such column), else a table.
 * The one place these rules live: the CLI and the service both come here through core/app.
 */
export async function detectSourceConfig(path: string, opts: DetectOptions = {}): Promise<SourceConfig> {
  return (await detectSourceAndTable(path, opts)).config;
}

/** A detected source config, and the table detection opened to tell (else null), for openSource's `table`. */
export interface SourceDetection {
  config: SourceConfig;
  table: TableReader | null;
}

/** detectSourceConfig, keeping the table it opened to look for an image column: the source opens from it, not again. */
export async function detectSourceAndTable(path: string, opts: DetectOptions = {}): Promise<SourceDetection> {
  const found = (config: SourceConfig, table: TableReader | null = null): SourceDetection => ({ config, table });
  const bad = (message: string): never => {
    throw new BetonEncodeError('BAD_OPTIONS', message, { source: path });
  };
  const conflict = (message: string): never => {
    throw new OptionsError(message, { source: path });
  };
  if (opts.clipLength === undefined) {
    const named = [opts.stride !== undefined && 'stride', opts.fps != null && 'fps', opts.ffmpeg !== undefined && 'ffmpeg'].filter(Boolean);
    if (named.length) conflict(`${path}: ${named.join(', ')} apply to video clips and need a clip length (CLI: --clip-length T)`);
  } else {
    if (opts.imageColumn !== undefined) conflict(`${path}: an image column applies to image lists, not to videos (CLI: --image-column)`);
    const clipping = {
      clipLength: opts.clipLength,
      ...(opts.stride ? { stride: opts.stride } : {}),
      fps: opts.fps ?? null,
      ...(opts.ffmpeg !== undefined ? { ffmpeg: opts.ffmpeg } : {}),
    };
    if ((await mustExist(path, 'either')) === 'folder') return found({ type: 'video_folder', path, ...clipping });
    const format = /\.jsonl$|\.ndjson$/i.test(path) ? 'jsonl' : /\.csv$/i.test(path) ? 'csv' : null;
    if (!format) return bad(`${path}: a video source is a folder (root/<class>/<video>) or a .csv/.jsonl list of videos`);
    return found({ type: 'video_list', path, format, ...clipping });
  }
  // Many files: WebDataset shards, or tables read as one.
  if (isPathPattern(path)) {
    const files = expandPathPattern(path, undefined, opts.readGuard);
    if (files.every((f) => isShardName(f))) return found({ type: 'webdataset', path });
    return found({ type: 'table', path, format: resolveTableFormat(files[0]!) });
  }
  const kind = await mustExist(path, 'either');
  if (kind === 'file' && (isShardName(path) || looksLikeShardList(path))) return found({ type: 'webdataset', path });
  if (kind === 'folder' && holdsShards(path)) return found({ type: 'webdataset', path });
  if (kind === 'folder') {
    if (looksLikeVideoFolder(path, opts.readGuard)) {
      if (opts.proposedClipLength !== undefined)
        return found({ type: 'video_folder', path, clipLength: opts.proposedClipLength, fps: opts.fps ?? null });
      conflict(`${path} holds videos (root/<class>/<video>); give a clip length (CLI: --clip-length T, optionally --stride S and --fps F)`);
    }
    if (opts.imageColumn) bad(`${path} is a folder; --image-column applies to CSV/TSV/JSONL image lists`);
    return found({ type: 'image_folder', path });
  }
  // One image or one video is a file, not a dataset: say what a source is ("set source.format" said nothing).
  const single = singleMediaKind(path);
  if (single)
    bad(
      `${path} is a single ${single}; a dataset source is a folder of ${single}s in class folders (root/<class>/<file>), a folder of WebDataset shards, a table (CSV, Parquet, JSONL, NPY), or a CSV/JSONL list of ${single} paths: choose the folder that holds it`,
    );
  const format = resolveTableFormat(path);
  const listable = format === 'csv' || format === 'tsv' || format === 'jsonl';
  if (opts.imageColumn) {
    if (!listable) bad(`${path}: --image-column needs a CSV, TSV or JSONL image list, not ${format}`);
    return found({ type: 'image_list', path, imageColumn: opts.imageColumn, format: format as 'csv' | 'tsv' | 'jsonl' });
  }
  if (listable) {
    const reader = await openTableReader(path, format);
    const rows = await reader.sample(DETECT_ROWS);
    const [col] = findImageColumns(reader.columns, rows, dirname(path), opts.readGuard);
    return found(col !== undefined ? { type: 'image_list', path, imageColumn: col, format } : { type: 'table', path, format }, reader);
  }
  return found({ type: 'table', path, format });
}

export { tableFormatOf };

/** A folder of WebDataset shards: it holds .tar/.tar.gz/.tgz files and no sub-folders (an ImageFolder has class folders). */
function holdsShards(dir: string): boolean {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    return !entries.some((e) => e.isDirectory() && !e.name.startsWith('.')) && folderFiles(dir, isShardName).length > 0;
  } catch {
    return false;
  }
}

async function mustExist(path: string, want: 'file' | 'folder' | 'either'): Promise<'file' | 'folder'> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'no such file or folder' : err.message;
    throw new BetonEncodeError('BAD_OPTIONS', `cannot open source ${path}: ${why}`, { source: path });
  }
  if (!st.isDirectory() && !st.isFile()) throw new NotAFileError(path, fileKind(st), 'source');
  const kind = st.isDirectory() ? 'folder' : 'file';
  if (want !== 'either' && kind !== want) {
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `source ${path} is a ${kind}; ${want === 'folder' ? 'an image_folder source is a folder' : 'a table or image list is a file'}`,
      { source: path },
    );
  }
  return kind;
}

/** 'image' or 'video' when a file's extension names one (a single file picked by mistake), else null. */
function singleMediaKind(path: string): 'image' | 'video' | null {
  if (/\.(jpe?g|png|webp|gif|bmp|tiff?|avif|heic|ppm|pgm)$/i.test(path)) return 'image';
  if (/\.(mp4|mkv|webm|mov|avi|m4v)$/i.test(path)) return 'video';
  return null;
}

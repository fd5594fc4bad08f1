import { readdirSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { BetonEncodeError } from '../../format/errors.js';
import { byCodePoint, isSubfolder, walkFiles } from '../common/folder-walk.js';
import { IMAGE_EXTENSIONS } from '../common/image-extensions.js';
import type { ReadGuard } from '../common/read-guard.js';
import { readRegularText } from '../../native/regular-file.js';

/** Container extensions taken as videos (compared case-insensitively). */
export const VIDEO_EXTENSIONS = [
  '.avi',
  '.mp4',
  '.m4v',
  '.mkv',
  '.mov',
  '.webm',
  '.mpg',
  '.mpeg',
  '.wmv',
  '.flv',
  '.ogv',
  '.3gp',
  '.mts',
  '.m2ts',
];

export const isVideoFile = (name: string): boolean => VIDEO_EXTENSIONS.includes(extname(name).toLowerCase());

/** One video of a source: where it is, its label, and optionally a time range (seconds). */
export interface VideoItem {
  path: string;
  label: number;
  start?: number | null;
  end?: number | null;
  /** Set when the list's row is unusable: the video is reported (skip/fail) instead of read. */
  error?: string;
}

export interface VideoListing {
  /** Class names by label (folders, or the list's string labels); null for integer labels. */
  classes: string[] | null;
  items: VideoItem[];
}

function classFolders(root: string, guard?: ReadGuard): string[] {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (e) {
    throw new BetonEncodeError('BAD_OPTIONS', `cannot read video folder ${root}: ${(e as Error).message}`, { source: root });
  }
  return entries
    .filter((e) => isSubfolder(root, e, guard))
    .map((e) => e.name)
    .sort(byCodePoint);
}

/**
 * `root/<class>/<video>` (UCF101's layout): classes sorted by name get labels 0..K-1, as
 * ImageFolder; videos in each class folder (and below) in sorted order.
 */
export function listVideoFolder(root: string, guard?: ReadGuard): VideoListing {
  const classes = classFolders(root, guard);
  if (classes.length === 0)
    throw new BetonEncodeError('BAD_OPTIONS', `${root} has no class folders; expected root/<class>/<video> (as UCF101)`, { source: root });
  const items: VideoItem[] = [];
  classes.forEach((cls, label) => {
    for (const path of walkFiles(join(root, cls), isVideoFile, guard)) items.push({ path, label });
  });
  if (items.length === 0)
    throw new BetonEncodeError('BAD_OPTIONS', `${root} has no videos with extensions ${VIDEO_EXTENSIONS.join(' ')}`, { source: root });
  return { classes, items };
}

/**
 * Whether a folder looks like root/<class>/<video>: its class folders hold more videos
 * than images (only the class folders' own entries are looked at, so this stays cheap).
 * With a `guard`, a class folder linked outside makes it false without being looked into
 * (opening the source then says why).
 */
export function looksLikeVideoFolder(root: string, guard?: ReadGuard): boolean {
  let videos = 0;
  let images = 0;
  let classes: string[];
  try {
    classes = classFolders(root, guard);
  } catch {
    return false;
  }
  for (const cls of classes) {
    let names: string[];
    try {
      names = readdirSync(join(root, cls));
    } catch {
      continue;
    }
    for (const n of names) {
      if (isVideoFile(n)) videos++;
      else if (IMAGE_EXTENSIONS.includes(extname(n).toLowerCase())) images++;
    }
  }
  return videos > 0 && videos > images;
}

type Row = Record<string, unknown>;

const PATH_COLUMNS = ['path', 'video', 'file', 'filename'];

/**
 * A list of videos: CSV (header row) or JSON lines with `path` (or video/file/filename),
 * `label` (an integer, or a class name: names sorted get labels 0..K-1), and optional
 * `start`/`end` in seconds. Relative paths resolve from the list's folder. A row that
 * cannot be used becomes an item with `error` (reported under the build's onError policy).
 */
export function readVideoList(path: string, format?: 'csv' | 'jsonl'): VideoListing {
  let text: string;
  try {
    text = readRegularText(path, 'video list');
  } catch (e) {
    throw new BetonEncodeError('BAD_OPTIONS', `cannot read video list ${path}: ${(e as Error).message}`, { source: path });
  }
  const fmt = format ?? (/\.jsonl?$/i.test(path) || /\.ndjson$/i.test(path) ? 'jsonl' : 'csv');
  const rows: Array<{ line: number; row: Row | null; error?: string }> = [];
  if (fmt === 'jsonl') {
    text.split('\n').forEach((l, i) => {
      if (!l.trim()) return;
      try {
        const v = JSON.parse(l) as unknown;
        if (typeof v !== 'object' || v === null || Array.isArray(v)) rows.push({ line: i + 1, row: null, error: 'not a JSON object' });
        else rows.push({ line: i + 1, row: v as Row });
      } catch (e) {
        rows.push({ line: i + 1, row: null, error: `invalid JSON (${(e as Error).message})` });
      }
    });
  } else {
    let records: Row[];
    try {
      records = parse(text, { columns: true, skip_empty_lines: true, bom: true, trim: true }) as Row[];
    } catch (e) {
      throw new BetonEncodeError('BAD_OPTIONS', `${path}: not a CSV video list: ${(e as Error).message}`, { source: path });
    }
    records.forEach((r, i) => rows.push({ line: i + 2, row: r }));
  }
  if (rows.length === 0) throw new BetonEncodeError('BAD_OPTIONS', `${path} lists no videos`, { source: path });
  const first = rows.find((r) => r.row)?.row ?? {};
  const pathCol = PATH_COLUMNS.find((c) => c in first);
  if (!pathCol)
    throw new BetonEncodeError(
      'BAD_SCHEMA',
      `${path}: no video path column; name it one of ${PATH_COLUMNS.join(', ')} (columns: ${Object.keys(first).join(', ')})`,
      { source: path },
    );

  const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
  const labels = rows.map((r) => r.row?.label);
  const intLabels = labels.every(
    (l) => !present(l) || (typeof l === 'number' && Number.isInteger(l)) || (typeof l === 'string' && /^-?\d+$/.test(l)),
  );
  const classes = intLabels ? null : [...new Set(labels.filter(present).map(String))].sort(byCodePoint);
  const base = dirname(resolve(path));
  const items: VideoItem[] = rows.map(({ line, row, error }) => {
    const where = `${path} line ${line}`;
    if (!row) return { path: where, label: -1, error: `${where}: ${error}` };
    const p = row[pathCol];
    if (typeof p !== 'string' || !p) return { path: where, label: -1, error: `${where}: no video path in column "${pathCol}"` };
    const full = isAbsolute(p) ? p : join(base, p);
    const item: VideoItem = { path: full, label: -1 };
    const l = row.label;
    if (!present(l)) item.error = `${where}: no label`;
    else item.label = classes ? classes.indexOf(String(l)) : Number(l);
    for (const k of ['start', 'end'] as const) {
      const v = row[k];
      if (!present(v)) continue;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) item.error ??= `${where}: ${k} must be seconds >= 0, got ${JSON.stringify(v)}`;
      else item[k] = n;
    }
    if (item.start != null && item.end != null && item.end <= item.start)
      item.error ??= `${where}: end (${item.end}) must be after start (${item.start})`;
    return item;
  });
  return { classes, items };
}

/**
 * A seeded, cached numeric CSV for the memory benchmark: `id,x,y,label,tag`, one row per
 * line, no quotes (so a file under the source's count limit gets its length from a newline
 * count). Row i depends only on the seed and i, so a reader can check any row without
 * keeping the file's contents: `csvRow(seed, i)`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Rng, mixSeed } from './prng.js';

const GENERATOR = 'beton-studio/bench/csv-table';
const GENERATOR_VERSION = 1;

export const CSV_COLUMNS = ['id', 'x', 'y', 'label', 'tag'] as const;
/** Short strings: none of them reads as a number, a boolean or an NA spelling (inference keeps them json). */
const TAGS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'theta',
  'iota',
  'kappa',
  'lambda',
  'omicron',
  'sigma',
  'tau',
  'upsilon',
  'omega',
  'rho',
];

export interface CsvRow {
  id: number;
  /** The cells exactly as written (floats as fixed-point text). */
  x: string;
  y: string;
  label: number;
  tag: string;
}

/** Row i of the table for `seed`. */
export function csvRow(seed: number, i: number): CsvRow {
  const rng = new Rng(mixSeed(seed, i));
  return {
    id: i,
    x: (rng.next() * 2000 - 1000).toFixed(4),
    y: rng.next().toFixed(6),
    label: rng.int(0, 999),
    tag: TAGS[rng.int(0, TAGS.length - 1)]!,
  };
}

export interface CsvTableManifest {
  generator: string;
  version: number;
  seed: number;
  rows: number;
  columns: readonly string[];
  bytes: number;
}

export interface CsvTableFile {
  path: string;
  manifest: CsvTableManifest;
  generated: boolean;
  elapsedMs: number;
}

/** Returns `<dir>/table-<rows>[-s<seed>].csv`, writing it first unless a matching one is there. */
export async function ensureCsvTable(opts: {
  rows: number;
  seed: number;
  dir: string;
  onProgress?: (done: number, total: number) => void;
}): Promise<CsvTableFile> {
  const t0 = performance.now();
  const { rows, seed, dir } = opts;
  const path = join(dir, `table-${rows}${seed === 1 ? '' : `-s${seed}`}.csv`);
  const manifestPath = `${path}.json`;
  const wanted = { generator: GENERATOR, version: GENERATOR_VERSION, seed, rows, columns: CSV_COLUMNS };
  const existing = readManifest(manifestPath);
  if (
    existing &&
    existing.generator === wanted.generator &&
    existing.version === wanted.version &&
    existing.seed === seed &&
    existing.rows === rows &&
    sizeOf(path) === existing.bytes
  ) {
    return { path, manifest: existing, generated: false, elapsedMs: performance.now() - t0 };
  }
  await mkdir(dir, { recursive: true });
  // Written beside the target and renamed at the end: an interrupted run never leaves a
  // file that looks complete. The manifest is written last.
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  await rm(manifestPath, { force: true });
  const fh = await open(partial, 'w');
  let bytes = 0;
  try {
    const header = CSV_COLUMNS.join(',') + '\n';
    bytes += (await fh.write(header)).bytesWritten;
    const block = 50_000;
    for (let start = 0; start < rows; start += block) {
      const end = Math.min(rows, start + block);
      const lines: string[] = [];
      for (let i = start; i < end; i++) {
        const r = csvRow(seed, i);
        lines.push(`${r.id},${r.x},${r.y},${r.label},${r.tag}\n`);
      }
      bytes += (await fh.write(lines.join(''))).bytesWritten;
      opts.onProgress?.(end, rows);
    }
  } catch (e) {
    await fh.close();
    await rm(partial, { force: true });
    throw e;
  }
  await fh.close();
  await rename(partial, path);
  const manifest: CsvTableManifest = { ...wanted, columns: [...CSV_COLUMNS], bytes };
  await writeFile(manifestPath, JSON.stringify(manifest, null, 1) + '\n');
  return { path, manifest, generated: true, elapsedMs: performance.now() - t0 };
}

function readManifest(path: string): CsvTableManifest | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CsvTableManifest;
  } catch {
    return null;
  }
}

function sizeOf(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

// Inputs for the CLI failure tests (cli-bad-input, cli-errors, build-output, runs-corrupt,
// small-datasets): small .beton files and runs databases good and damaged (the CLI runner is cli.ts).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

export const ROOT = resolve(__dirname, '../..');
export const SAMPLE_IMAGES = resolve(ROOT, 'assets/sample-images');

/** A JS stack frame line ("    at f (file.js:1:2)"): must never reach a user. */
export const STACK_LINE = /^\s+at .+/m;

/** `n` samples of w×h images (one colour per sample) and an int label. */
export async function writeImageBeton(
  path: string,
  n: number,
  opts: { width?: number; height?: number; writeMode?: 'raw' | 'jpg' } = {},
): Promise<void> {
  const width = opts.width ?? 24;
  const height = opts.height ?? 16;
  const samples = Array.from({ length: n }, (_, i) => ({
    image: { data: new Uint8Array(width * height * 3).map((_, k) => (i * 37 + k * 11) & 255), width, height },
    label: i % 5,
  }));
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: opts.writeMode ?? 'raw' }), label: new IntField() },
    { numWorkers: 0 },
  ).write(samples);
}

/** A file of ints only (no image field). */
export async function writeIntBeton(path: string, n: number): Promise<void> {
  await new DatasetWriter(path, { label: new IntField() }, { numWorkers: 0 }).write(Array.from({ length: n }, (_, i) => ({ label: i })));
}

/** A jpg-mode file whose first JPEG lost its start marker: the loader cannot decode that sample. */
export async function writeCorruptJpegBeton(path: string, n: number): Promise<void> {
  await writeImageBeton(path, n, { writeMode: 'jpg', width: 32, height: 32 });
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from([0xff, 0xd8, 0xff]));
  if (at < 0) throw new Error('no JPEG in the file');
  bytes.fill(0, at, at + 3);
  writeFileSync(path, bytes);
}

/** A small finished profile run, as the profiler stores it. */
export function sampleRun(): ProfileRun {
  const point = (index: number, workers: number): ProfileRun['points'][number] => ({
    index,
    config: { workers, batchSize: 16, order: 'random', osCache: true },
    images: 400,
    seconds: 1,
    imagesPerSec: 400 * workers,
    batchesPerSec: 25 * workers,
    waitP50Ms: 1,
    waitP95Ms: 2,
    workerBusyMsPerBatch: 3,
    cpuPerCore: [0.5, 0.5],
    rssPeakBytes: 1e8,
    diskReadBytes: 0,
    pageCacheResident: 1,
    gpuUtilMean: null,
  });
  return {
    kind: 'sweep',
    startedAt: '2025-03-01T10:00:00.000Z',
    finishedAt: '2025-03-01T10:00:10.000Z',
    status: 'ok',
    plan: {
      file: '/data/small.beton',
      workers: [1, 2],
      batchSizes: [16],
      orders: ['random'],
      osCache: [true],
      decoder: 'rrc:160',
      flip: true,
      secondsPerPoint: 1,
      warmupBatches: 1,
    },
    machine: { hostname: 'box', cpuModel: 'cpu', cores: 2, ramBytes: 2 ** 33, os: 'Linux', node: 'v20.19.0', gpus: [] },
    dataset: {
      path: '/data/small.beton',
      sizeBytes: 1000,
      headerSha256: 'ab'.repeat(32),
      numSamples: 40,
      schema: [{ name: 'image', type: 'rgb_image', typeId: 2 }],
    },
    points: [point(0, 1), point(1, 2)],
    samples: Array.from({ length: 200 }, (_, i) => ({
      t: i * 250,
      point: i < 100 ? 0 : 1,
      imagesPerSec: 400,
      cpuPerCore: [0.5, 0.5],
      rssBytes: 1e8,
      diskReadBytes: 0,
      gpus: [],
    })),
    verdict: null,
  };
}

/** A runs database holding `runs` sample runs (ids 1..runs). */
export function writeRunsDb(path: string, runs = 2): void {
  const db = RunsDb.open(path);
  try {
    for (let i = 0; i < runs; i++) db.saveRun(sampleRun());
  } finally {
    db.close();
  }
  // One file, no -wal beside it: copies of it are whole databases.
  const raw = new Database(path);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.pragma('journal_mode = DELETE');
  raw.close();
}

/** A copy of a runs database with the schema version of a future beton-studio. */
export function writeNewerSchemaDb(from: string, to: string): void {
  copyFileSync(from, to);
  const raw = new Database(to);
  raw.pragma('user_version = 99');
  raw.close();
}

/** A copy of a runs database with the b-tree page of `table` overwritten: PRAGMA quick_check fails. */
export function writeDamagedDb(from: string, to: string, table = 'samples'): void {
  const raw = new Database(from, { readonly: true });
  const { rootpage } = raw.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as { rootpage: number };
  const pageSize = Number(raw.pragma('page_size', { simple: true }));
  raw.close();
  const bytes = readFileSync(from);
  bytes.fill(0xff, (rootpage - 1) * pageSize + 8, (rootpage - 1) * pageSize + 208);
  writeFileSync(to, bytes);
}

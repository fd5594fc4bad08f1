import { availableParallelism } from 'node:os';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DEFAULT_CHECK_THRESHOLDS, type CheckThresholds, type DatasetCheck } from '../api/dataset-check.js';
import { BetonError } from '../format/errors.js';
import { datasetContentSha256 } from '../reader/content-hash.js';
import { Reader } from '../reader/reader.js';
import { replaceFile } from '../writer/replace-file.js';
import { spawnWorker } from '../workers/spawn-worker.js';
import { analyse } from './check/analyse.js';
import type { CheckWorkerData, CheckWorkerMessage } from './check/check-worker.js';
import { sampleFacts, type SampleFacts } from './check/sample-facts.js';
import { classNamesFor, labelFieldOf, manifestOf } from './dataset-labels.js';

export interface CheckOptions {
  /** Decode threads (default: the machine's cores, at most 8); 0 decodes in this thread. */
  numWorkers?: number;
  thresholds?: Partial<CheckThresholds>;
  /** Called as samples are decoded (the CLI's progress bar, the app's jobs:progress). */
  onProgress?: (p: CheckProgress) => void;
  /** Keep the result beside the file (`X.beton.check.json`); default true. */
  save?: boolean;
  /** Stops the check: its workers are terminated, it rejects with the signal's reason and keeps no result. */
  signal?: AbortSignal;
}

/** How far a check is: samples decoded of the total, the average rate since it started, what is left. */
export interface CheckProgress {
  done: number;
  total: number;
  samplesPerSec: number;
  /** Time left at the average rate; null before there is one. */
  etaMs: number | null;
  elapsedMs: number;
}

/** Where the check of `path` is kept. */
export const checkSidecarPath = (path: string): string => `${path}.check.json`;

/**
 * `beton check` (and the app's Health panel): decodes every sample of a .beton once, with
 * the loader's decoders, in worker threads, and reports corrupt samples, exact and near
 * duplicates (label disagreements first), outliers and per-class counts (docs/check.md).
 * The result is kept in `X.beton.check.json`, keyed by the file's content identity, so the
 * app shows it without decoding again.
 */
export async function checkDataset(path: string, opts: CheckOptions = {}): Promise<DatasetCheck> {
  const t0 = performance.now();
  opts.signal?.throwIfAborted();
  const thresholds = { ...DEFAULT_CHECK_THRESHOLDS, ...opts.thresholds };
  const reader = await Reader.open(path);
  let imageField: number | null;
  let labelField: number | null;
  let labelName: string | null;
  let classNames: readonly string[] | null;
  const total = reader.numSamples;
  try {
    const img = reader.fields.findIndex((f) => f.field.type === 'rgb_image');
    imageField = img >= 0 ? img : null;
    const manifest = manifestOf(reader.path);
    labelName = labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    labelField = labelName === null ? null : reader.fieldIndex(labelName);
    classNames = labelName === null ? null : classNamesFor(manifest, labelName);
  } finally {
    reader.close();
  }
  const facts: SampleFacts[] = [];
  const progress = (): void => {
    const elapsedMs = performance.now() - t0;
    const samplesPerSec = elapsedMs > 0 ? (facts.length / elapsedMs) * 1000 : 0;
    const etaMs = samplesPerSec > 0 ? ((total - facts.length) / samplesPerSec) * 1000 : null;
    opts.onProgress?.({ done: facts.length, total, samplesPerSec, etaMs, elapsedMs });
  };
  const workers = Math.min(opts.numWorkers ?? Math.min(8, availableParallelism()), Math.ceil(total / 64));
  if (workers <= 0) {
    const r = await Reader.open(path);
    try {
      for (let i = 0; i < total; i++) {
        opts.signal?.throwIfAborted();
        facts.push(sampleFacts(r, i, imageField, labelField));
        if (i % 64 === 63) progress();
      }
    } finally {
      r.close();
    }
  } else {
    await Promise.all(
      Array.from({ length: workers }, (_, k) =>
        runWorker(
          { path, start: Math.floor((k * total) / workers), end: Math.floor(((k + 1) * total) / workers), imageField, labelField },
          (batch) => {
            for (const f of batch) facts.push(f);
            progress();
          },
          opts.signal,
        ),
      ),
    );
  }
  opts.signal?.throwIfAborted();
  facts.sort((a, b) => a.id - b.id);
  const { result, labelConflicts } = analyse(facts, thresholds, classNames);
  const elapsedMs = performance.now() - t0;
  const check: DatasetCheck = {
    format: 'beton-studio/dataset-check',
    version: 1,
    beton: { file: path, contentSha256: datasetContentSha256(path), fileSize: statSync(path).size, numSamples: total },
    imageField: imageField === null ? null : await fieldName(path, imageField),
    labelField: labelName,
    thresholds,
    result,
    labelConflicts,
    elapsedMs: Math.round(elapsedMs),
    samplesPerSec: elapsedMs > 0 ? Math.round((total / elapsedMs) * 1000 * 10) / 10 : 0,
    createdAt: new Date().toISOString(),
  };
  // A cancel during the grouping still keeps nothing: only a finished check is written (atomically).
  opts.signal?.throwIfAborted();
  if (opts.save !== false) await replaceFile(checkSidecarPath(path), JSON.stringify(check) + '\n');
  return check;
}

async function fieldName(path: string, f: number): Promise<string> {
  const r = await Reader.open(path);
  try {
    return r.fields[f]!.name;
  } finally {
    r.close();
  }
}

/**
 * One worker's slice. Settles once: on its facts' end, its error, its exit, or the signal (which
 * terminates it at once, so a cancelled check stops within a sample's decode, and the facts
 * still queued from it are dropped).
 */
function runWorker(data: CheckWorkerData, onFacts: (f: SampleFacts[]) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const w = spawnWorker('./check/check-worker.js', import.meta.url, data);
    let settled = false;
    const settle = (err: unknown): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      void w.terminate();
      if (err === undefined) resolve();
      else reject(err);
    };
    const abort = (): void => settle(signal!.reason);
    signal?.addEventListener('abort', abort, { once: true });
    w.on('message', (m: CheckWorkerMessage) => {
      if (settled) return;
      if (m.type === 'facts') onFacts(m.facts);
      else if (m.type === 'done') settle(undefined);
      else settle(new BetonError('CHECK_FAILED', `${data.path}: ${m.message}`));
    });
    w.on('error', (e) => settle(e));
    w.on('exit', (code) => settle(new BetonError('CHECK_FAILED', `${data.path}: a check worker stopped (exit code ${code})`)));
  });
}

/**
 * The kept check of `path` when it is this file's (same content identity); null when there
 * is none, it is unreadable, or the file changed since (the app then offers to run it).
 */
export async function readDatasetCheck(path: string): Promise<DatasetCheck | null> {
  let doc: DatasetCheck;
  try {
    doc = JSON.parse(await readFile(checkSidecarPath(path), 'utf8')) as DatasetCheck;
  } catch {
    return null;
  }
  if (doc?.format !== 'beton-studio/dataset-check' || doc.version !== 1) return null;
  try {
    return doc.beton.contentSha256 === datasetContentSha256(path) ? doc : null;
  } catch {
    return null;
  }
}

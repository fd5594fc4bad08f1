import { RGB_IMAGE_IDENTITY } from '../fields/rgb-image-field.js';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { DEFAULT_CHECK_THRESHOLDS, type CheckThresholds, type DatasetCheck } from '../api/dataset-check.js';
import { BetonError } from '../format/errors.js';
import { datasetContentSha256 } from '../reader/content-hash.js';
import { Reader } from '../reader/reader.js';
import { openRegular } from '../native/regular-file.js';
import { sameVersion, storedVersionKey, versionKey, wholeFileSha256 } from '../reader/file-identity.js';
import { replaceFile } from '../writer/replace-file.js';
import { spawnWorker } from '../workers/spawn-worker.js';
import { analyse } from './check/analyse.js';
import type { CheckWorkerData, CheckWorkerMessage } from './check/check-worker.js';
import { parseCheckSidecar } from './check/check-sidecar.js';
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
  // This reader's descriptor is the file the result is about: its fstat is the version every
  // worker must open too, and the whole-file hash is read through it (file-identity.ts).
  const reader = await Reader.open(path);
  try {
    const st0 = reader.localStat();
    if (!st0) throw new BetonError('CHECK_FAILED', `${path}: only a local file can be checked`);
    const img = reader.fields.findIndex((f) => f.field.type === RGB_IMAGE_IDENTITY.type);
    const imageField = img >= 0 ? img : null;
    const manifest = manifestOf(reader.path);
    const labelName = labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const labelField = labelName === null ? null : reader.fieldIndex(labelName);
    const classNames = labelName === null ? null : classNamesFor(manifest, labelName);
    const total = reader.numSamples;
    const version = versionKey(st0);
    // Hashed while the workers decode (its reads yield to the event loop between chunks).
    const hashing = wholeFileSha256(st0, (o, n) => reader.readRaw(o, n), opts.signal);
    hashing.catch(() => undefined);

    const facts: SampleFacts[] = [];
    const progress = (): void => {
      const elapsedMs = performance.now() - t0;
      const samplesPerSec = elapsedMs > 0 ? (facts.length / elapsedMs) * 1000 : 0;
      const etaMs = samplesPerSec > 0 ? ((total - facts.length) / samplesPerSec) * 1000 : null;
      opts.onProgress?.({ done: facts.length, total, samplesPerSec, etaMs, elapsedMs });
    };
    const workers = Math.min(opts.numWorkers ?? Math.min(8, availableParallelism()), Math.ceil(total / 64));
    if (workers <= 0) {
      for (let i = 0; i < total; i++) {
        opts.signal?.throwIfAborted();
        facts.push(sampleFacts(reader, i, imageField, labelField));
        if (i % 64 === 63) progress();
      }
    } else {
      await Promise.all(
        Array.from({ length: workers }, (_, k) =>
          runWorker(
            {
              path,
              version,
              start: Math.floor((k * total) / workers),
              end: Math.floor(((k + 1) * total) / workers),
              imageField,
              labelField,
            },
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
    let dataSha256: string;
    try {
      dataSha256 = await hashing;
    } catch (e) {
      opts.signal?.throwIfAborted();
      throw new BetonError('CHECK_FAILED', `${path}: ${(e as Error).message}`);
    }
    // Written to in place while checked: the result would describe no version of the file.
    // Swapped for another file: the result is about the old one, and would be kept beside the new.
    if (!sameVersion(st0, reader.localStat()!)) throw changedDuringCheck(path);
    const now = await stat(path, { bigint: true }).catch(() => null);
    if (!now || now.ino !== st0.ino || now.dev !== st0.dev) throw changedDuringCheck(path);
    facts.sort((a, b) => a.id - b.id);
    const { result, labelConflicts } = analyse(facts, thresholds, classNames);
    const elapsedMs = performance.now() - t0;
    const check: DatasetCheck = {
      format: 'beton-studio/dataset-check',
      version: 1,
      beton: {
        file: path,
        contentSha256: datasetContentSha256(path),
        dataSha256,
        fileVersion: storedVersionKey(st0),
        fileSize: Number(st0.size),
        numSamples: total,
      },
      imageField: imageField === null ? null : reader.fields[imageField]!.name,
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
  } finally {
    reader.close();
  }
}

/** The file is not the one the check started on (swapped, or written to): no result is kept. */
export function changedDuringCheck(path: string): BetonError {
  return new BetonError(
    'CHECK_FAILED',
    `${path}: the file was replaced or written to while it was checked; no result kept (run the check again)`,
  );
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

/** The largest sidecar read (a capped report is a few MB; anything larger is not ours). */
const MAX_SIDECAR_BYTES = 64 << 20;

/**
 * The kept check of `path` when it is about this file's exact bytes; null ("not checked")
 * when there is none, it is unreadable or not a check (any shape), or the file changed
 * since (another whole-file hash; the app then offers to run it). The sidecar is opened like
 * any input (core/native/regular-file.ts: O_NONBLOCK, a regular file only, and under
 * `beton serve` still inside the served folders), so a FIFO or a link out of the folder
 * named like a sidecar is "not checked", never a hang or a leak.
 */
export async function readDatasetCheck(path: string, signal?: AbortSignal): Promise<DatasetCheck | null> {
  let text: string;
  try {
    const { fh, size } = await openRegular(checkSidecarPath(path), 'check result');
    try {
      if (size > MAX_SIDECAR_BYTES) return null;
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
  const doc = parseCheckSidecar(text);
  if (!doc) return null;
  try {
    const { fh } = await openRegular(path, '.beton file');
    try {
      const st = await fh.stat({ bigint: true });
      if (Number(st.size) !== doc.beton.fileSize) return null;
      // Unchanged since the check (same inode, size and mtime): its hash stands.
      if (storedVersionKey(st) === doc.beton.fileVersion) return doc;
      const hash = await wholeFileSha256(
        st,
        async (offset, length) => {
          const buf = new Uint8Array(length);
          const { bytesRead } = await fh.read(buf, 0, length, offset);
          return buf.subarray(0, bytesRead);
        },
        signal,
      );
      return hash === doc.beton.dataSha256 ? doc : null;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

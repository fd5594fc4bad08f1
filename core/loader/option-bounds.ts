import { availableParallelism } from 'node:os';
import { LoaderError } from './errors.js';

/**
 * Most batches decoded ahead: each is a ring slot of a batch's rows per output, and past a
 * few dozen the consumer never catches up with them (FFCV's default is 3).
 */
export const MAX_BATCHES_AHEAD = 1024;

/** Worker threads never exceed this many per core (with a floor of 64, for small machines that still ask for many). */
const WORKERS_PER_CORE = 2;
const MIN_WORKER_CAP = 64;

/**
 * The worker threads a loader starts for `requested`: at most max(64, 2 × cores), and at
 * most one per row of a batch (every worker works on every batch, claiming rows; a worker
 * with no row left only idles). 256 workers on 12 samples started 256 threads (4.7 GB,
 * 15 s) before; now 12. Loader.numWorkers reports the number started.
 */
export function effectiveWorkers(requested: number, rowsPerBatch: number, cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(requested, rowsPerBatch, Math.max(MIN_WORKER_CAP, WORKERS_PER_CORE * cores)));
}

/**
 * `indices` checked before any conversion to u32 (which turned -1 into 4294967295 and 0.5
 * into 0): every entry an integer id of the file, naming the first one that is not.
 */
export function checkIndices(given: ArrayLike<number>, numSamples: number, path: string): Uint32Array {
  if (
    given === null ||
    typeof given !== 'object' ||
    typeof given.length !== 'number' ||
    !Number.isSafeInteger(given.length) ||
    given.length < 0
  ) {
    throw new LoaderError('BAD_OPTIONS', `indices must be an array of sample ids, got ${describe(given)}`);
  }
  const ids = new Uint32Array(given.length);
  for (let i = 0; i < given.length; i++) {
    const id = given[i];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= numSamples) {
      throw new LoaderError(
        'BAD_OPTIONS',
        `indices contains ${describe(id)} (at [${i}]), but ${path} has ${numSamples} samples: ids are integers from 0 to ${numSamples - 1}`,
      );
    }
    ids[i] = id;
  }
  return ids;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 40));
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}

/** An integer option in [min, max], or BAD_OPTIONS naming it and the range. */
export const intOption = (v: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new LoaderError(
      'BAD_OPTIONS',
      `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got ${String(v)}`,
    );
  return v;
};

import { createHash } from 'node:crypto';
import { datasetContentSha256 } from '../reader/content-hash.js';
import { LoaderError } from './errors.js';

/**
 * What identifies the loader a state was saved by: resuming another loader's state would
 * silently skip or repeat samples (another file, batch size, order, seed or sample set
 * gives other batches at the same numbers), so resume() compares each of these.
 */
export interface LoaderIdentity {
  /**
   * sha256 over the file's header, field table, allocation table (reader/content-hash.ts)
   * and metadata table: its content, not its path (a copy elsewhere resumes). Data pages
   * are not read (that would cost a pass over the file); two files alike in every table
   * but a pixel pass for one.
   */
  file: string;
  batchSize: number;
  /** Order name ('custom:<function name>' for a factory). */
  order: string;
  seed: number;
  /** Batches per epoch. */
  length: number;
  /** sha256 of the `indices` given (as u32 ids), or null for every sample. */
  indices: string | null;
  /** "rank/worldSize", or null when not distributed. */
  distributed: string | null;
}

/** Where an iteration stands, for mid-epoch resume (FFCV has none). JSON-safe. */
export interface LoaderState {
  /** The epoch to run next (or the one being run). */
  epoch: number;
  /** The first batch of that epoch still to be consumed. */
  batch: number;
  seed: number;
  /** The loader that saved it (checked by resume()). */
  loader: LoaderIdentity;
}

export function loaderIdentity(o: {
  path: string;
  /** The whole metadata table (Reader.metadata). */
  metadata: Uint8Array;
  batchSize: number;
  order: string;
  seed: number;
  length: number;
  indices: ArrayLike<number> | undefined;
  distributed?: { rank: number; worldSize: number };
}): LoaderIdentity {
  let indices: string | null = null;
  if (o.indices !== undefined) {
    const ids = Uint32Array.from(o.indices);
    indices = createHash('sha256')
      .update(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength))
      .digest('hex');
  }
  return {
    file: createHash('sha256').update(datasetContentSha256(o.path)).update(o.metadata).digest('hex'),
    batchSize: o.batchSize,
    order: o.order,
    seed: o.seed,
    length: o.length,
    indices,
    distributed: o.distributed ? `${o.distributed.rank}/${o.distributed.worldSize}` : null,
  };
}

const WHAT: Record<keyof LoaderIdentity, string> = {
  file: 'file content (sha256 of its header and tables)',
  batchSize: 'batchSize',
  order: 'order',
  seed: 'seed',
  indices: 'indices (sha256)',
  distributed: 'distributed rank/worldSize',
  // Last: a length difference is usually the consequence of one above.
  length: 'batches per epoch',
};

const short = (v: unknown): string => (typeof v === 'string' && v.length === 64 ? `${v.slice(0, 12)}…` : JSON.stringify(v));

/**
 * A saved state checked against this loader: an object from Loader.state() (JSON round
 * trips included) whose identity equals `mine` and whose batch exists. Returns where to
 * resume; throws FOREIGN_STATE (BAD_OPTIONS for a value that is not a state) naming what differs.
 */
export function checkState(state: unknown, mine: LoaderIdentity, path: string): { epoch: number; batch: number } {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) {
    throw new LoaderError(
      'BAD_OPTIONS',
      `resume() takes a state from loader.state() ({ epoch, batch, seed, loader }), got ${state === null ? 'null' : Array.isArray(state) ? 'an array' : typeof state}`,
    );
  }
  const s = state as Partial<Record<keyof LoaderState, unknown>>;
  const id = s.loader;
  if (id === null || typeof id !== 'object') {
    throw new LoaderError(
      'FOREIGN_STATE',
      `resume(): the state has no loader identity (epoch, batch and seed alone cannot say which file and options it belongs to); save it with loader.state() of this version`,
    );
  }
  const theirs = id as Partial<Record<keyof LoaderIdentity, unknown>>;
  for (const key of Object.keys(WHAT) as Array<keyof LoaderIdentity>) {
    if (theirs[key] !== mine[key]) {
      throw new LoaderError(
        'FOREIGN_STATE',
        `resume(): the state was saved by another loader — its ${WHAT[key]} is ${short(theirs[key])}, this loader over ${path} has ${short(mine[key])}; open the loader with the file and options the state was saved with`,
      );
    }
  }
  if (s.seed !== mine.seed) {
    throw new LoaderError(
      'FOREIGN_STATE',
      `resume(): the state was saved with seed ${short(s.seed)}, this loader uses ${mine.seed}; open the loader with that seed`,
    );
  }
  const epoch = s.epoch;
  if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 0) {
    throw new LoaderError('BAD_OPTIONS', `resume(): state.epoch must be an integer >= 0, got ${short(epoch)}`);
  }
  const batch = s.batch;
  if (typeof batch !== 'number' || !Number.isSafeInteger(batch) || batch < 0 || batch > mine.length) {
    throw new LoaderError(
      'FOREIGN_STATE',
      `resume(): state.batch is ${short(batch)}, but an epoch of this loader has ${mine.length} batches (0 to ${mine.length} allowed, ${mine.length} = the epoch is done)`,
    );
  }
  return { epoch, batch };
}

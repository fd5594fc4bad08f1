import { LoaderError } from './errors.js';

/**
 * A batch larger than the epoch with `dropLast` (on by default, as FFCV's `drop_last`) leaves
 * no full batch: FFCV's Loader then yields nothing and `len(loader) == 0`, silently. That is
 * never what a user meant, so opening such a loader fails instead, saying both ways out.
 * `samples` is what one epoch visits on this rank (after `indices` and `distributed`).
 */
export function requireSomeBatch(samples: number, batchSize: number, dropLast: boolean, path: string): void {
  if (!dropLast || samples === 0 || samples >= batchSize) return;
  throw new LoaderError(
    'BAD_OPTIONS',
    `batchSize ${batchSize} is larger than the ${samples} samples an epoch of ${path} visits, so with dropLast ` +
      `(on by default, like FFCV's drop_last) there would be no batch at all; pass dropLast: false for one batch ` +
      `of ${samples}, or a batchSize of at most ${samples}`,
  );
}

/** Batches in an epoch of `samples` samples: the last partial one dropped or kept. */
export function batchesPerEpoch(samples: number, batchSize: number, dropLast: boolean): number {
  return dropLast ? Math.floor(samples / batchSize) : Math.ceil(samples / batchSize);
}

import { LoaderConfig } from '../api/loader-config.js';
import type { FfcvPointSpec } from '../profile/sweep/sweep.js';
import { loaderToPython } from './python.js';

/**
 * The ffcv engine's loader for one grid point: exactly what `beton export` writes for the
 * same settings (num_workers, batch_size, order, os_cache, batches_ahead, the decoder and
 * flip), so a sweep's FFCV numbers are those of the code a user exports. The generated
 * module defines `loader`; its `__main__` loop does not run when the engine execs it.
 */
export function ffcvPointCode(p: FfcvPointSpec): string {
  const config = LoaderConfig.parse({
    file: p.file,
    batchSize: p.config.batchSize,
    numWorkers: p.config.workers,
    order: p.config.order,
    seed: 0,
    dropLast: true,
    batchesAhead: p.batchesAhead,
    osCache: p.config.osCache,
    pipelines: { [p.imageField]: p.steps },
  });
  return loaderToPython(config);
}

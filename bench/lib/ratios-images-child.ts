/**
 * Our side of the "images" line of `npm run bench -- ratios`, in a fresh process (as FFCV's
 * side runs in a fresh interpreter): opens the Loader with the pipeline of the loader
 * benchmark (RandomResizedCrop + flip + CHW, FFCV's exact pixels: fastDecode off) and times
 * each epoch.
 *
 *   node dist/bench/lib/ratios-images-child.js '{"file":…,"epochs":4,"batchSize":64,"workers":2,"size":160}'
 *
 * Prints one JSON line: { openMs, firstBatchMs, epochs (seconds each), images (per epoch) }.
 */
import { Loader } from '../../core/index.js';
import { loaderPipelines } from './loader-limit.js';

interface ChildArgs {
  file: string;
  epochs: number;
  batchSize: number;
  workers: number;
  size: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
const t0 = performance.now();
// quasi_random as FFCV's side, which refuses QUASI_RANDOM with os_cache: both read through
// their own process cache.
const loader = await Loader.open(args.file, {
  batchSize: args.batchSize,
  numWorkers: args.workers,
  order: 'quasi_random',
  osCache: false,
  dropLast: true,
  seed: 0,
  pipelines: loaderPipelines(args.size),
});
const openMs = performance.now() - t0;
let firstBatchMs = 0;
const epochs: number[] = [];
let images = 0;
try {
  for (let e = 0; e < args.epochs; e++) {
    const te = performance.now();
    let n = 0;
    for await (const b of loader) {
      n += b.size;
      if (firstBatchMs === 0) firstBatchMs = performance.now() - t0;
    }
    epochs.push((performance.now() - te) / 1000);
    images = n;
  }
} finally {
  await loader.close();
}
process.stdout.write(JSON.stringify({ openMs, firstBatchMs, epochs, images }) + '\n');

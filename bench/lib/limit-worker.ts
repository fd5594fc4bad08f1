/**
 * One thread of the parallel limit (see measureParallelLimit in loader-limit.ts): preloads
 * the stored images itself, says 'ready', runs measureLimit when told 'go', posts the result.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { measureLimit, preloadImages, type LimitOptions, type LimitResult } from './loader-limit.js';

const init = workerData as { path: string; options: LimitOptions };
const images = preloadImages(init.path);
// Untimed JIT warm-up, as on the main thread.
measureLimit(images.slice(0, 200), { ...init.options, epochs: [0] });
parentPort!.once('message', () => {
  const t0 = performance.now();
  const result: LimitResult = measureLimit(images, init.options);
  parentPort!.postMessage({ result, ms: performance.now() - t0 });
});
parentPort!.postMessage('ready');

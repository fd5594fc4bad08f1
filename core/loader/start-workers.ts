import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../workers/spawn-worker.js';
import { LoaderError } from './errors.js';
import type { WorkerInit, WorkerReply } from './protocol.js';

/** Starts the decode workers and resolves once every one has opened the file and said ready. */
export async function startWorkers(count: number, init: WorkerInit): Promise<Worker[]> {
  const workers = Array.from({ length: count }, () => spawnWorker('./decode-worker.js', import.meta.url, init));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const onMsg = (r: WorkerReply): void => {
              if (r.type === 'ready') {
                w.off('message', onMsg);
                w.off('error', reject);
                resolve();
              }
            };
            w.on('message', onMsg);
            w.once('error', reject);
            w.once('exit', (code) => reject(new LoaderError('WORKER_FAILED', `a loader worker exited during start-up (code ${code})`)));
          }),
      ),
    );
  } catch (e) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw e;
  }
  for (const w of workers) w.removeAllListeners('exit');
  return workers;
}

import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../core/workers/spawn-worker.js';

export type HostileCall = { op: 'file'; name: string; bytes: Uint8Array } | { op: 'log' } | { op: 'reset' } | { op: 'stop' };

/**
 * A hostile HTTP range server on loopback (hostile-server-worker.ts), for the tests of what
 * the remote layer refuses. URLs are `${origin}/<dir>/<mode>/<name>`; modes:
 * ok · long206 (a longer body than its Content-Range) · early206 (a range starting 100
 * bytes early) · whole200 (200 with the whole object) · gzip (a gzip-encoded 206) ·
 * endless200 / endless206 (a body that never ends) · weak (a W/ ETag, strict If-Match) ·
 * swap-noetag (no ETag; another object after the first request) · redirect-out (to
 * /secret/ok/NAME) · redirect-far (to http://127.0.0.2) · redirect-in (to /ok/ok/NAME) ·
 * redirect-loop · redirect-dots (to /ok/%2e%2e/secret/…).
 */
export interface Hostile {
  origin: string;
  serve(name: string, bytes: Uint8Array): Promise<void>;
  /** The requests since the last call ("GET /path {headers}"), and clears them. */
  log(): Promise<string[]>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startHostile(): Promise<Hostile> {
  const w: Worker = spawnWorker('./hostile-server-worker.js', import.meta.url, {});
  let next = 1;
  const waiting = new Map<number, (v: unknown) => void>();
  const started = new Promise((r) => waiting.set(0, r));
  w.on('message', (m: { id: number; result: unknown }) => {
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  const call = (c: HostileCall): Promise<unknown> =>
    new Promise((r) => {
      const id = next++;
      waiting.set(id, r);
      w.postMessage({ ...c, id });
    });
  const origin = (await started) as string;
  return {
    origin,
    serve: async (name, bytes) => void (await call({ op: 'file', name, bytes })),
    log: async () => (await call({ op: 'log' })) as string[],
    reset: async () => void (await call({ op: 'reset' })),
    stop: async () => {
      await call({ op: 'stop' });
      await w.terminate();
    },
  };
}

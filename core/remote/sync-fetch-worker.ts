import { parentPort, workerData } from 'node:worker_threads';
import { BetonError } from '../format/errors.js';
import { openRangeClient } from './open-client.js';
import type { RangeClient } from './range-client.js';
import type { SyncFetchRequest } from './sync-fetch.js';

/** The thread that makes sync-fetch.ts's blocking reads: it fetches, the caller waits on a shared flag. */
const { url } = workerData as { url: string };
let client: Promise<RangeClient> | null = null;

parentPort!.on('message', (req: SyncFetchRequest) => {
  const ctl = new Int32Array(req.ctl);
  const finish = (state: number, n: number): void => {
    Atomics.store(ctl, 1, n);
    Atomics.store(ctl, 0, state);
    Atomics.notify(ctl, 0);
  };
  void (async () => {
    try {
      client ??= openRangeClient(url);
      // The body is read straight into the caller's shared buffer (no second copy of a page).
      const data = new Uint8Array(req.data);
      const r = await (await client).get(req.offset, req.length, req.etag, data);
      if (r.bytes.buffer !== req.data) data.set(r.bytes.subarray(0, req.length));
      finish(1, Math.min(r.bytes.byteLength, req.length));
    } catch (e) {
      const err = e as Error;
      const text = new TextEncoder().encode(
        JSON.stringify({ code: e instanceof BetonError ? e.code : 'REMOTE_UNAVAILABLE', message: err.message }),
      );
      const room = new Uint8Array(req.ctl, 8);
      const n = Math.min(text.byteLength, room.byteLength);
      room.set(text.subarray(0, n));
      finish(2, n);
    }
  })();
});

import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../workers/spawn-worker.js';
import { RemoteError, type RemoteErrorCode } from './errors.js';
import { maxAttempts, requestTimeoutMs } from './retry.js';

/** Main → fetch thread: fill `data` with bytes [offset, offset+length), then set ctl[0]. */
export interface SyncFetchRequest {
  offset: number;
  length: number;
  etag: string | null;
  data: SharedArrayBuffer;
  /** Int32 [state (0 pending, 1 done, 2 failed), byte count]; a failure's JSON from byte 8. */
  ctl: SharedArrayBuffer;
}

/**
 * Blocking ranged reads, for the Reader's synchronous API (readBytes, read): a thread
 * does the (async) request while the caller waits on a shared flag with Atomics.wait.
 * Only what the open did not fetch comes this way (data pages, one whole page per miss),
 * so `dump` and `inspect` cost a request per page, not per sample. Started on first use.
 */
export class SyncFetcher {
  private worker: Worker | null = null;

  constructor(readonly url: string) {}

  read(offset: number, length: number, etag: string | null): Uint8Array {
    this.worker ??= this.start();
    const data = new SharedArrayBuffer(length);
    const ctl = new SharedArrayBuffer(8 + 4096);
    const flag = new Int32Array(ctl);
    this.worker.postMessage({ offset, length, etag, data, ctl } satisfies SyncFetchRequest);
    // The thread gives up after its attempts (each bounded); this bound only catches a dead thread.
    const limit = maxAttempts() * (requestTimeoutMs() + 2000) + 10_000;
    if (Atomics.wait(flag, 0, 0, limit) === 'timed-out')
      throw new RemoteError('REMOTE_TIMEOUT', `${this.url}: no answer for bytes ${offset}..${offset + length} within ${limit} ms`);
    const n = Atomics.load(flag, 1);
    if (Atomics.load(flag, 0) === 2) {
      const { code, message } = JSON.parse(new TextDecoder().decode(new Uint8Array(ctl, 8, n))) as { code: string; message: string };
      throw new RemoteError(code.startsWith('REMOTE_') ? (code as RemoteErrorCode) : 'REMOTE_UNAVAILABLE', message);
    }
    return new Uint8Array(data, 0, n);
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = null;
  }

  private start(): Worker {
    const w = spawnWorker('./sync-fetch-worker.js', import.meta.url, { url: this.url });
    // Idle, it must not keep the process alive (a script that read a sample and returned).
    w.unref();
    return w;
  }
}

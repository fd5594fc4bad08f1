import type { DiskCache } from '../../remote/disk-cache.js';
import type { RangeClient } from '../../remote/range-client.js';
import type { PageFetch } from './page-cache.js';

/** Consecutive missing pages fetched by one GET, at most. */
const MAX_RUN_PAGES = 4;

export interface RemoteFetchOptions {
  client: RangeClient;
  /** The object's ETag when opened: every GET is pinned to it (a replaced object is refused). */
  etag: string | null;
  pageSize: number;
  /** Where the pages end (the allocation table's offset): the last page is fetched short. */
  dataEnd: number;
  /** Ranged GETs in flight at once. */
  concurrency: number;
  disk: DiskCache | null;
}

/**
 * A remote file's pages for the page cache: whole pages by ranged GET, consecutive ones in
 * one request, at most `concurrency` requests in flight. Pages already in the local disk
 * cache cost no request; fetched ones are written there for the next epoch or process.
 */
export function remoteFetch(opts: RemoteFetchOptions): PageFetch {
  const { client, etag, pageSize: ps, dataEnd, disk } = opts;
  const limited = concurrencyLimit(opts.concurrency);
  return {
    maxRun: MAX_RUN_PAGES,
    pageBytes: (page) => Math.min(ps, dataEnd - page * ps),
    fetch: async (first, views) => {
      if (disk) {
        let all = true;
        for (let i = 0; i < views.length && all; i++) all = await disk.read(first + i, views[i]!);
        if (all) return 0;
      }
      const length = views.reduce((n, v) => n + v.byteLength, 0);
      const got = await limited(() => client.get(first * ps, length, etag));
      views.forEach((v, i) => v.set(got.bytes.subarray(i * ps, i * ps + v.byteLength)));
      if (disk) views.forEach((v, i) => void disk.write(first + i, v.slice()));
      return views.length;
    },
  };
}

/** Runs at most `n` of the given tasks at once; the rest wait in order. */
function concurrencyLimit(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let inFlight = 0;
  const queue: Array<() => void> = [];
  return async (f) => {
    while (inFlight >= n) await new Promise<void>((r) => queue.push(r));
    inFlight++;
    try {
      return await f();
    } finally {
      inFlight--;
      queue.shift()?.();
    }
  };
}

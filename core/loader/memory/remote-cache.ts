import { DiskCache } from '../../remote/disk-cache.js';
import type { RemoteFile } from '../../remote/remote-file.js';
import type { Reader } from '../../reader/reader.js';
import { PageCache } from './page-cache.js';
import { remoteFetch } from './remote-fetch.js';
import { pagesOfFields } from './sample-pages.js';

/** Default page pool for a remote file: 512 MiB (at least one batch's pages). */
const DEFAULT_POOL_BYTES = 2 ** 29;
/** Ranged GETs in flight at once. */
const DEFAULT_CONCURRENCY = 8;

export interface RemoteCacheOptions {
  fields: readonly number[];
  batchSize: number;
  /** Size of the in-memory page pool. */
  poolBytes?: number;
  /** A local folder caching pages across epochs and processes (disk-cache.ts), and its byte limit. */
  cacheDir?: string;
  cacheBytes?: number;
  concurrency?: number;
}

/**
 * The loader's memory for a remote file (s3://, https://): the page cache (page-cache.ts)
 * filled by ranged GETs (remote-fetch.ts) before a batch is dispatched, in the loader's
 * batch order (batchesAhead batches ahead). Workers see it exactly as the process cache
 * (plan kind 'process': the shared page → slot table), so they need no network. A rank of
 * a distributed loader fetches only the pages of its own samples.
 */
export class RemoteCache extends PageCache {
  private readonly disk: DiskCache | null;

  constructor(reader: Reader, remote: RemoteFile, opts: RemoteCacheOptions) {
    const ps = reader.pageSize;
    const dataEnd = reader.header.allocTablePtr;
    const numPages = Math.ceil(dataEnd / ps);
    // A batch must fit: each sample's heap fields may each be on a page of their own
    // (metadata-only fields, ints and floats, have none).
    const heapFields = opts.fields.filter((f) => reader.fields[f]?.field.pointerOffset !== null).length;
    const minSlots = Math.min(numPages, opts.batchSize * Math.max(1, heapFields) + 1);
    const want = Math.ceil((opts.poolBytes ?? DEFAULT_POOL_BYTES) / ps);
    const slots = Math.max(1, Math.min(numPages, Math.max(minSlots, want)));
    const snap = remote.snapshot;
    // The environment gives every command (profile, the app) a disk cache without a flag of its own.
    const cacheDir = opts.cacheDir ?? process.env['BETON_REMOTE_CACHE_DIR'];
    const envBytes = Number(process.env['BETON_REMOTE_CACHE_BYTES']);
    const cacheBytes = opts.cacheBytes ?? (envBytes > 0 ? envBytes : undefined);
    const disk = cacheDir ? new DiskCache(cacheDir, snap.url, snap.etag, ps, cacheBytes) : null;
    super({
      pageSize: ps,
      numPages,
      slots,
      fetch: remoteFetch({
        client: remote.client,
        etag: snap.etag,
        pageSize: ps,
        dataEnd,
        concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
        disk,
      }),
      pagesOf: pagesOfFields(reader, opts.fields),
    });
    this.disk = disk;
  }

  /** Pages served from the disk cache instead of the network. */
  get diskHits(): number {
    return this.disk?.hits ?? 0;
  }
}

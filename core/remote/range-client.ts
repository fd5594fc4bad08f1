/** What a ranged GET returns: the bytes, and what the server says about the whole object. */
export interface RangeResult {
  bytes: Uint8Array;
  /** The object's total size (from Content-Range). */
  size: number;
  /** The version pin (version-pin.ts): a strong ETag, or a token of the validators the server gave. */
  etag: string | null;
}

/** Network figures of one client: what an epoch costs in requests and bytes (the profiler reads them). */
export interface TransferStats {
  requests: number;
  bytes: number;
  retries: number;
  /** Summed request latency (first byte to last), ms. */
  latencyMs: number;
}

export const emptyStats = (): TransferStats => ({ requests: 0, bytes: 0, retries: 0, latencyMs: 0 });

/**
 * Ranged reads of one remote object (S3 or HTTP). `etag` pins the version (the pin a
 * first answer returned): a request with one fails with REMOTE_CHANGED if the object was
 * replaced since, so a file overwritten mid-epoch is an error, never mixed bytes. The
 * bytes returned are exactly those asked (capped-body.ts), else REMOTE_BAD_RANGE. Retries, timeouts and error
 * naming are the implementation's (retry.ts).
 */
export interface RangeClient {
  readonly url: string;
  readonly stats: TransferStats;
  /** `into`: where to write the body (readCapped), so a caller with its own buffer holds no second copy. */
  get(offset: number, length: number, etag: string | null, into?: Uint8Array): Promise<RangeResult>;
}

import type * as S3Sdk from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { RemoteError } from './errors.js';
import { expectedRange, rangeText, readCapped } from './capped-body.js';
import { emptyStats, type RangeClient, type RangeResult } from './range-client.js';
import { networkError, statusError, Transient, withRetry } from './retry.js';
import { s3Client } from './s3-client.js';
import { changedFrom, pinFor, validatorsOf } from './version-pin.js';

/** S3 error names that mean the credentials themselves are wrong, not the permissions. */
const BAD_CREDENTIALS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
]);

/** Maps an SDK failure to a RemoteError naming the URL (Transient where a retry may help). */
export function s3Error(url: string, e: unknown, signal?: AbortSignal): Error {
  if (e instanceof RemoteError || e instanceof Transient) return e;
  if (signal?.aborted) return e as Error;
  const err = e as Error & { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const name = err.name ?? err.Code ?? '';
  if (BAD_CREDENTIALS.has(name) || /credential/i.test(err.message ?? ''))
    return new RemoteError('REMOTE_CREDENTIALS', `${url}: the credentials were refused (${name}: ${err.message})`, { cause: e });
  if (name === 'NoSuchBucket') return new RemoteError('REMOTE_NOT_FOUND', `${url}: the bucket does not exist (NoSuchBucket)`, { cause: e });
  if (name === 'NoSuchKey' || name === 'NotFound')
    return new RemoteError('REMOTE_NOT_FOUND', `${url}: no object at this key (${name})`, { cause: e });
  if (name === 'AccessDenied' || name === 'Forbidden')
    return new RemoteError('REMOTE_ACCESS_DENIED', `${url}: access denied (${name})`, { cause: e });
  if (name === 'PreconditionFailed') return statusError(url, 412);
  if (name === 'SlowDown' || name === 'ThrottlingException' || name === 'RequestTimeout') return statusError(url, 503, name);
  const status = err.$metadata?.httpStatusCode;
  if (status) return statusError(url, status, name === 'Unknown' ? '' : name);
  return networkError(url, e);
}

/** Ranged GetObject calls; the SDK's own retries are off (maxAttempts 1): retry.ts decides, for S3 and HTTP alike. */
export class S3RangeClient implements RangeClient {
  readonly stats = emptyStats();

  private constructor(
    readonly url: string,
    private readonly client: S3Client,
    private readonly sdk: typeof S3Sdk,
    readonly bucket: string,
    readonly key: string,
  ) {}

  static async open(url: string, bucket: string, key: string): Promise<S3RangeClient> {
    const { client, sdk } = await s3Client();
    return new S3RangeClient(url, client, sdk, bucket, key);
  }

  get(offset: number, length: number, etag: string | null, into?: Uint8Array): Promise<RangeResult> {
    return withRetry(this.url, this.stats, async (signal) => {
      let res: GetObjectCommandOutput;
      const validators = etag ? validatorsOf(etag) : null;
      try {
        res = await this.client.send(
          new this.sdk.GetObjectCommand({
            Bucket: this.bucket,
            Key: this.key,
            Range: `bytes=${offset}-${offset + length - 1}`,
            ...(etag && !validators ? { IfMatch: etag } : {}),
          }),
          { abortSignal: signal },
        );
      } catch (e) {
        throw s3Error(this.url, e, signal);
      }
      // The SDK hands the body over undecoded; the same checks as over HTTP: the range
      // answered is the one asked, its length announced, and no more is read than that.
      const body = res.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
      const stop = (): void => body?.destroy?.();
      if (etag && !validators && res.ETag && res.ETag !== etag) {
        stop();
        throw new RemoteError('REMOTE_CHANGED', `${this.url}: the object changed since it was opened (ETag ${etag} → ${res.ETag})`);
      }
      let expected: number;
      let size: number;
      try {
        if (res.ContentRange)
          ({ expected, total: size } = expectedRange(this.url, offset, length, res.ContentRange, res.ContentLength ?? null));
        else if (offset === 0 && res.ContentLength !== undefined && res.ContentLength <= length) expected = size = res.ContentLength;
        else
          throw new RemoteError(
            'REMOTE_BAD_RANGE',
            `${this.url}: asked for ${rangeText(offset, length)}, the endpoint answered without a Content-Range (${res.ContentLength ?? 'unknown'} bytes)`,
          );
      } catch (e) {
        stop();
        throw e;
      }
      const lastModified = res.LastModified?.toUTCString() ?? null;
      const changed = validators ? changedFrom(validators, res.ETag ?? null, lastModified, size) : null;
      if (changed) {
        stop();
        throw new RemoteError('REMOTE_CHANGED', `${this.url}: the object changed since it was opened (${changed})`);
      }
      const bytes = await readCapped(body, expected, { url: this.url, offset, length, signal }, stop, into);
      this.stats.bytes += bytes.byteLength;
      return { bytes, size, etag: etag ?? pinFor(res.ETag ?? null, lastModified, size) };
    });
  }
}

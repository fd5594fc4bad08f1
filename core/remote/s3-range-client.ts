import type * as S3Sdk from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { RemoteError } from './errors.js';
import { emptyStats, totalFromContentRange, type RangeClient, type RangeResult } from './range-client.js';
import { cutShort, mustBeWhole, networkError, statusError, Transient, withRetry } from './retry.js';
import { s3Client } from './s3-client.js';

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

  get(offset: number, length: number, etag: string | null): Promise<RangeResult> {
    return withRetry(this.url, this.stats, async (signal) => {
      let res: GetObjectCommandOutput;
      let body: Uint8Array;
      try {
        res = await this.client.send(
          new this.sdk.GetObjectCommand({
            Bucket: this.bucket,
            Key: this.key,
            Range: `bytes=${offset}-${offset + length - 1}`,
            ...(etag ? { IfMatch: etag } : {}),
          }),
          { abortSignal: signal },
        );
      } catch (e) {
        throw s3Error(this.url, e, signal);
      }
      try {
        body = res.Body ? await res.Body.transformToByteArray() : new Uint8Array(0);
      } catch (e) {
        if (signal.aborted) throw e;
        throw cutShort(this.url, offset, length, e);
      }
      if (etag && res.ETag && res.ETag !== etag)
        throw new RemoteError('REMOTE_CHANGED', `${this.url}: the object changed since it was opened (ETag ${etag} → ${res.ETag})`);
      const size = totalFromContentRange(res.ContentRange) ?? res.ContentLength ?? body.byteLength;
      mustBeWhole(this.url, offset, length, size, body);
      this.stats.bytes += body.byteLength;
      return { bytes: body, size, etag: res.ETag ?? null };
    });
  }
}

import { RemoteError } from './errors.js';
import { emptyStats, totalFromContentRange, type RangeClient, type RangeResult } from './range-client.js';
import { cutShort, mustBeWhole, networkError, statusError, withRetry } from './retry.js';

/** Ranged GETs over http(s):// with fetch: `Range` for the bytes, `If-Match` to pin the ETag. */
export class HttpRangeClient implements RangeClient {
  readonly stats = emptyStats();

  constructor(readonly url: string) {}

  get(offset: number, length: number, etag: string | null): Promise<RangeResult> {
    return withRetry(this.url, this.stats, async (signal) => {
      const headers: Record<string, string> = { range: `bytes=${offset}-${offset + length - 1}` };
      if (etag) headers['if-match'] = etag;
      let res: Response;
      try {
        res = await fetch(this.url, { headers, signal, redirect: 'follow' });
      } catch (e) {
        if (signal.aborted) throw e;
        throw networkError(this.url, e);
      }
      if (res.status !== 206 && res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        throw statusError(this.url, res.status);
      }
      const got = res.headers.get('etag');
      if (etag && got && got !== etag) {
        await res.body?.cancel().catch(() => undefined);
        throw new RemoteError('REMOTE_CHANGED', `${this.url}: the object changed since it was opened (ETag ${etag} → ${got})`);
      }
      let body: Uint8Array;
      try {
        body = new Uint8Array(await res.arrayBuffer());
      } catch (e) {
        if (signal.aborted) throw e;
        throw cutShort(this.url, offset, length, e);
      }
      let size: number;
      if (res.status === 200) {
        // A server without range support sends the whole object: take our slice of it.
        size = body.byteLength;
        body = body.subarray(offset, offset + length);
      } else {
        const total = totalFromContentRange(res.headers.get('content-range'));
        if (total === null) throw new RemoteError('REMOTE_UNAVAILABLE', `${this.url}: a ranged answer without a Content-Range header`);
        size = total;
      }
      mustBeWhole(this.url, offset, length, size, body);
      this.stats.bytes += body.byteLength;
      return { bytes: body, size, etag: got };
    });
  }
}

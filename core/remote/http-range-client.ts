import { expectedRange, rangeText, readCapped } from './capped-body.js';
import { RemoteError } from './errors.js';
import { emptyStats, type RangeClient, type RangeResult } from './range-client.js';
import { networkError, statusError, withRetry } from './retry.js';
import { checkRedirect, checkUrl, processPolicy, type UrlPolicy } from './url-policy.js';
import { changedFrom, isStrong, pinFor, validatorsOf } from './version-pin.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Ranged GETs over http(s):// with fetch. Every byte is checked before it is used: a 206
 * must carry exactly the range asked (Content-Range and length), a 200 only when it is the
 * whole object and the request covered it, no Content-Encoding (identity is asked for);
 * bodies stream into a buffer of the expected length and are cut off past it. Redirects
 * are followed by hand, each hop checked against the URL policy (url-policy.ts). The pin
 * (version-pin.ts) is a strong ETag sent as If-Match, or the weak ETag / Last-Modified /
 * size the server gave, compared on every answer.
 */
export class HttpRangeClient implements RangeClient {
  readonly stats = emptyStats();
  private readonly href: string;

  constructor(
    readonly url: string,
    private readonly policy: UrlPolicy = processPolicy(),
  ) {
    this.href = checkUrl(url, policy).href;
  }

  get(offset: number, length: number, pin: string | null, into?: Uint8Array): Promise<RangeResult> {
    return withRetry(this.url, this.stats, async (signal) => {
      const headers: Record<string, string> = { range: `bytes=${offset}-${offset + length - 1}`, 'accept-encoding': 'identity' };
      const validators = pin ? validatorsOf(pin) : null;
      if (pin && !validators && isStrong(pin)) headers['if-match'] = pin;
      if (validators?.lastModified) headers['if-unmodified-since'] = validators.lastModified;
      const res = await this.fetchFollowing(headers, signal);
      const stop = async (): Promise<void> => void (await res.body?.cancel().catch(() => undefined));
      if (res.status !== 206 && res.status !== 200) {
        await stop();
        throw statusError(this.url, res.status);
      }
      const encoding = res.headers.get('content-encoding');
      if (encoding && encoding.toLowerCase() !== 'identity') {
        await stop();
        throw new RemoteError(
          'REMOTE_BAD_RANGE',
          `${this.url}: the answer for ${rangeText(offset, length)} is ${encoding}-encoded (ranges are read as stored bytes)`,
        );
      }
      const cl = res.headers.get('content-length');
      const contentLength = cl !== null && /^\d+$/.test(cl.trim()) ? Number(cl) : null;
      let expected: number;
      let size: number;
      if (res.status === 206) {
        try {
          ({ expected, total: size } = expectedRange(this.url, offset, length, res.headers.get('content-range'), contentLength));
        } catch (e) {
          await stop();
          throw e;
        }
      } else {
        // A 200 is the whole object: usable only when it is what was asked for (the request
        // started at 0 and covers it), its length announced; otherwise the server ignored Range.
        if (offset !== 0 || contentLength === null || contentLength > length) {
          await stop();
          throw new RemoteError(
            'REMOTE_BAD_RANGE',
            `${this.url}: asked for ${rangeText(offset, length)}, the server answered 200 with the whole object (${contentLength ?? 'unknown length'}${contentLength === null ? '' : ' bytes'}); it must support Range requests`,
          );
        }
        expected = size = contentLength;
      }
      const got = res.headers.get('etag');
      const lastModified = res.headers.get('last-modified');
      const changed =
        pin && !validators
          ? got && got !== pin
            ? `ETag ${pin} → ${got}`
            : null
          : validators
            ? changedFrom(validators, got, lastModified, size)
            : null;
      if (changed) {
        await stop();
        throw new RemoteError('REMOTE_CHANGED', `${this.url}: the object changed since it was opened (${changed})`);
      }
      const body = await readCapped(
        res.body as AsyncIterable<Uint8Array> | null,
        expected,
        { url: this.url, offset, length, signal },
        stop,
        into,
      );
      this.stats.bytes += body.byteLength;
      return { bytes: body, size, etag: pin ?? pinFor(got, lastModified, size) };
    });
  }

  /** One GET, following redirects within the policy (each hop checked before it is requested). */
  private async fetchFollowing(headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    let href = this.href;
    for (let hop = 1; ; hop++) {
      let res: Response;
      try {
        res = await fetch(href, { headers, signal, redirect: 'manual' });
      } catch (e) {
        if (signal.aborted) throw e;
        throw networkError(this.url, e);
      }
      if (!REDIRECTS.has(res.status)) return res;
      await res.body?.cancel().catch(() => undefined);
      href = checkRedirect(href, res.headers.get('location'), hop, this.policy).href;
    }
  }
}

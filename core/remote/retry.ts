import { RemoteError } from './errors.js';
import type { TransferStats } from './range-client.js';

/** Per-request time limit (BETON_REMOTE_TIMEOUT_MS, default 30 s): a stalled server is a timeout, never a hang. */
export function requestTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env['BETON_REMOTE_TIMEOUT_MS']);
  return Number.isFinite(v) && v > 0 ? v : 30_000;
}

/** Attempts per request (BETON_REMOTE_ATTEMPTS, default 4). */
export function maxAttempts(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env['BETON_REMOTE_ATTEMPTS']);
  return Number.isInteger(v) && v >= 1 ? v : 4;
}

/** A failure worth another attempt (5xx, throttling, timeout, reset, short body); `final` is what to throw when attempts run out. */
export class Transient extends Error {
  constructor(readonly final: RemoteError) {
    super(final.message);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `attempt` with a per-attempt timeout (its AbortSignal) and retries Transient
 * failures with exponential backoff and jitter (100 ms, 200 ms, … capped at 2 s). Any
 * other error (a RemoteError: 403, 404, changed object) is thrown at once.
 */
export async function withRetry<T>(url: string, stats: TransferStats, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const attempts = maxAttempts();
  const timeout = requestTimeoutMs();
  let last: RemoteError | null = null;
  for (let n = 0; n < attempts; n++) {
    if (n > 0) {
      stats.retries++;
      await sleep(Math.min(2000, 100 * 2 ** (n - 1)) * (0.5 + Math.random() / 2));
    }
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), timeout);
    const t0 = performance.now();
    try {
      stats.requests++;
      const out = await attempt(ctl.signal);
      stats.latencyMs += performance.now() - t0;
      return out;
    } catch (e) {
      if (ctl.signal.aborted) {
        last = new RemoteError('REMOTE_TIMEOUT', `${url}: no complete answer within ${timeout} ms (${n + 1} attempt(s))`);
        continue;
      }
      if (e instanceof Transient) {
        last = e.final;
        continue;
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
  throw last ?? new RemoteError('REMOTE_UNAVAILABLE', `${url}: failed`);
}

/** The RemoteError for an HTTP status (Transient for those worth retrying). */
export function statusError(url: string, status: number, detail = ''): Error {
  const d = detail ? ` (${detail})` : '';
  if (status === 404) return new RemoteError('REMOTE_NOT_FOUND', `${url}: not found (HTTP 404${d})`);
  if (status === 401 || status === 403) return new RemoteError('REMOTE_ACCESS_DENIED', `${url}: access denied (HTTP ${status}${d})`);
  if (status === 412)
    return new RemoteError('REMOTE_CHANGED', `${url}: the object changed since it was opened (its ETag no longer matches)`);
  if (status === 416)
    return new RemoteError('REMOTE_TRUNCATED', `${url}: the requested bytes lie past the end of the object (HTTP 416); it is truncated`);
  if (status === 429 || status >= 500)
    return new Transient(new RemoteError('REMOTE_UNAVAILABLE', `${url}: the server kept failing (last: HTTP ${status}${d})`));
  return new RemoteError('REMOTE_UNAVAILABLE', `${url}: unexpected HTTP ${status}${d}`);
}

/**
 * Connection failures that another attempt cannot fix: no such host, nothing listening,
 * a certificate refused, a URL the client cannot use. Named at once, not retried as if
 * the server had failed.
 */
const PERMANENT =
  /^(ENOTFOUND|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ERR_INVALID_URL|ERR_TLS_.*|CERT_.*|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_.*|ERR_SSL_.*|EPROTO|UND_ERR_INVALID_ARG|UND_ERR_NOT_SUPPORTED)$/;

/** A network-level failure (reset, refused, DNS) naming the URL: Transient (retried) unless PERMANENT. */
export function networkError(url: string, e: unknown): Error {
  const err = e as Error & { cause?: { code?: string; message?: string }; code?: string };
  const code = err.cause?.code ?? err.code ?? '';
  const why = code || err.cause?.message || err.message;
  if (PERMANENT.test(code))
    return new RemoteError('REMOTE_UNAVAILABLE', `${url}: cannot connect (${why}); check the host name, port and endpoint`, { cause: e });
  return new Transient(new RemoteError('REMOTE_UNAVAILABLE', `${url}: the connection failed (${why})`, { cause: e }));
}

/** The connection broke after the answer began: the bytes were cut short (retried; REMOTE_TRUNCATED if it persists). */
export function cutShort(url: string, offset: number, length: number, e: unknown): Transient {
  const err = e as Error & { cause?: { code?: string }; code?: string };
  const why = err.cause?.code ?? err.code ?? err.message;
  return new Transient(
    new RemoteError('REMOTE_TRUNCATED', `${url}: the answer for bytes ${offset}..${offset + length} was cut short (${why})`, { cause: e }),
  );
}

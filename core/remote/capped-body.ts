import { RemoteError } from './errors.js';
import { cutShort, Transient } from './retry.js';

/** Bytes a-b (inclusive) in words, as the messages name a request. */
export const rangeText = (offset: number, length: number): string => `bytes ${offset}-${offset + length - 1}`;

/**
 * Reads an answer's body into a buffer of exactly `expected` bytes, as it streams: never
 * more is held (an endless or over-long body is cut off at the first byte too many, and is
 * REMOTE_BAD_RANGE: the server sent other bytes than asked), and a body that ends early is
 * retried (Transient), then REMOTE_TRUNCATED. `stop` releases the connection. With `into`
 * (at least `expected` bytes), the body is written there instead of a new buffer: the sync
 * fetch thread reads straight into the caller's SharedArrayBuffer, so a large page is held
 * once, not twice.
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array> | null | undefined,
  expected: number,
  where: { url: string; offset: number; length: number; signal: AbortSignal },
  stop: () => Promise<void> | void,
  into?: Uint8Array,
): Promise<Uint8Array> {
  const out = into && into.byteLength >= expected ? into.subarray(0, expected) : new Uint8Array(expected);
  let at = 0;
  try {
    if (body)
      for await (const chunk of body) {
        if (at + chunk.byteLength > expected) {
          await Promise.resolve(stop()).catch(() => undefined);
          throw new RemoteError(
            'REMOTE_BAD_RANGE',
            `${where.url}: the answer for ${rangeText(where.offset, where.length)} is longer than the ${expected} bytes it announced (cut off after ${at + chunk.byteLength})`,
          );
        }
        out.set(chunk, at);
        at += chunk.byteLength;
      }
  } catch (e) {
    if (e instanceof RemoteError || where.signal.aborted) throw e;
    throw cutShort(where.url, where.offset, where.length, e);
  }
  if (at < expected)
    throw new Transient(
      new RemoteError(
        'REMOTE_TRUNCATED',
        `${where.url}: the answer for ${rangeText(where.offset, where.length)} ended after ${at} of ${expected} bytes`,
      ),
    );
  return out;
}

/** Parses a Content-Range `bytes a-b/size` exactly; null for any other form. */
export function parseContentRange(v: string | null | undefined): { start: number; end: number; total: number } | null {
  const m = v ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(v) : null;
  if (!m) return null;
  const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return start <= end && end < total ? { start, end, total } : null;
}

/**
 * Checks a 206's Content-Range against the request (bytes offset..offset+length-1, cut at
 * the object's end) and returns the body length it implies; REMOTE_BAD_RANGE otherwise.
 */
export function expectedRange(
  url: string,
  offset: number,
  length: number,
  contentRange: string | null | undefined,
  contentLength: number | null,
): { expected: number; total: number } {
  const cr = parseContentRange(contentRange);
  const asked = rangeText(offset, length);
  if (!cr)
    throw new RemoteError('REMOTE_BAD_RANGE', `${url}: the answer for ${asked} has no usable Content-Range (${contentRange ?? 'none'})`);
  const end = Math.min(offset + length, cr.total) - 1;
  if (cr.start !== offset || cr.end !== end)
    throw new RemoteError('REMOTE_BAD_RANGE', `${url}: asked for ${asked}, the server answered bytes ${cr.start}-${cr.end}/${cr.total}`);
  const expected = end - offset + 1;
  if (contentLength !== null && contentLength !== expected)
    throw new RemoteError(
      'REMOTE_BAD_RANGE',
      `${url}: the answer for ${asked} announces ${contentLength} bytes, its Content-Range ${expected}`,
    );
  return { expected, total: cr.total };
}

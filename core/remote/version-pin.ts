/**
 * What pins the version of a remote object across the requests of a read (RangeResult.etag,
 * RemoteSnapshot.etag): a strong ETag as the server gave it (sent as If-Match), or, when
 * the server gives only a weak ETag or none, a token of the validators it did give — weak
 * ETag, Last-Modified, size — each compared on every answer. A weak ETag is never sent in
 * If-Match: RFC 9110 §13.1.1 compares If-Match strongly, so a strict server fails every read.
 */
export interface Validators {
  /** A weak ETag (W/"…"), or null. */
  weak: string | null;
  lastModified: string | null;
  size: number;
}

const MARK = '~';

/** The pin for an answer's validators. */
export function pinFor(etag: string | null, lastModified: string | null, size: number): string {
  if (etag && isStrong(etag)) return etag;
  return MARK + JSON.stringify({ weak: etag, lastModified, size } satisfies Validators);
}

/** A strong entity tag: "…" (not W/"…"). */
export function isStrong(etag: string): boolean {
  return /^"[^"]*"$/.test(etag);
}

/** The validators of a pin that is not a strong ETag; null for a strong one. */
export function validatorsOf(pin: string): Validators | null {
  if (!pin.startsWith(MARK)) return null;
  try {
    const v = JSON.parse(pin.slice(MARK.length)) as Validators;
    return typeof v.size === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** Weak comparison of entity tags (RFC 9110 §8.8.3.2): the opaque tags match, W/ ignored. */
export function weakEqual(a: string, b: string): boolean {
  return a.replace(/^W\//, '') === b.replace(/^W\//, '');
}

/**
 * What changed between the pinned validators and an answer's, in words; null if nothing.
 * A validator the answer lacks is not a change (some servers send them only on 200).
 */
export function changedFrom(pin: Validators, etag: string | null, lastModified: string | null, size: number): string | null {
  if (pin.size !== size) return `size ${pin.size} → ${size} bytes`;
  if (pin.weak && etag && !weakEqual(pin.weak, etag)) return `ETag ${pin.weak} → ${etag}`;
  if (pin.lastModified && lastModified && pin.lastModified !== lastModified) return `Last-Modified ${pin.lastModified} → ${lastModified}`;
  return null;
}

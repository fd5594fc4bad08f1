import { RemoteError } from '../remote/errors.js';
import { isRemoteUrl, parseRemoteUrl } from '../remote/url.js';
import { ServiceError } from './service-error.js';

/**
 * Which remote datasets a client may make the server open. `beton serve` opens s3:// and
 * https:// URLs only under the prefixes given with --allow-remote (none by default): a
 * client must not make the server fetch an arbitrary URL (an internal address, another
 * bucket the server's credentials can read). Electron's user is the client: any URL.
 */
export class RemoteAccess {
  readonly prefixes: string[];

  constructor(
    prefixes: readonly string[],
    private readonly any = false,
  ) {
    this.prefixes = prefixes.map(normalizePrefix);
  }

  /** `url` if it may be opened, else FORBIDDEN (never a request made to find out). */
  check(url: string): string {
    let u;
    try {
      u = parseRemoteUrl(url);
    } catch (e) {
      throw new ServiceError('BAD_REQUEST', (e as RemoteError).message);
    }
    if (this.any) return url;
    // Dot segments would let a prefix match a path outside it once a server normalises it.
    const path = u.kind === 's3' ? u.key : new URL(url).pathname;
    const dotted = /(^|\/)\.\.?(\/|$)|%2e/i.test(path) || /(^|\/)\.\.?(\/|$)/.test(url.replace(/^[a-z0-9]+:\/\//i, ''));
    if (!dotted && this.prefixes.some((p) => url === p || url.startsWith(p.endsWith('/') ? p : `${p}/`))) return url;
    throw new ServiceError(
      'FORBIDDEN',
      this.prefixes.length
        ? `${url} is outside the remote prefixes this server may open (${this.prefixes.join(', ')})`
        : `${url}: this server opens no remote datasets; start it with --allow-remote s3://bucket/prefix (or https://host/path)`,
    );
  }
}

/** Checks a --allow-remote value: an s3:// or https:// (http:// on loopback) prefix. */
export function normalizePrefix(p: string): string {
  if (!isRemoteUrl(p)) throw new RemoteError('REMOTE_BAD_URL', `${p}: --allow-remote expects s3://bucket/prefix or https://host/path`);
  const s3Bucket = /^s3:\/\/([^/]+)\/?$/i.exec(p);
  parseRemoteUrl(s3Bucket ? `s3://${s3Bucket[1]}/x` : p);
  return s3Bucket ? `s3://${s3Bucket[1]}/` : p;
}

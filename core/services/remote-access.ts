import { RemoteError } from '../remote/errors.js';
import { checkUrl, parsePrefix, PREFIXES_ENV } from '../remote/url-policy.js';
import { isRemoteUrl } from '../remote/url.js';
import { ServiceError } from './service-error.js';

/**
 * Which remote datasets a client may make the server open. `beton serve` opens s3:// and
 * https:// URLs only under the prefixes given with --allow-remote (none by default): a
 * client must not make the server fetch an arbitrary URL (an internal address, another
 * bucket the server's credentials can read). Electron's user is the client: any URL.
 * The check is url-policy.ts's, the one every request and redirect hop passes: the URL is
 * parsed, ambiguous forms refused, then compared to the prefixes segment by segment.
 */
export class RemoteAccess {
  readonly prefixes: string[];

  constructor(
    prefixes: readonly string[],
    private readonly any = false,
  ) {
    this.prefixes = prefixes.map(normalizePrefix);
  }

  /** `url` if it may be opened, else FORBIDDEN or BAD_REQUEST (never a request made to find out). */
  check(url: string): string {
    try {
      checkUrl(url, { prefixes: this.any ? null : this.prefixes });
      return url;
    } catch (e) {
      if (!(e instanceof RemoteError)) throw e;
      // FORBIDDEN only for a plain URL outside the prefixes (the app then says which prefix
      // would allow it); an ambiguous or unsupported form is a bad request whatever the prefixes.
      throw new ServiceError(e.code === 'REMOTE_FORBIDDEN' ? 'FORBIDDEN' : 'BAD_REQUEST', e.message);
    }
  }
}

/** Checks a --allow-remote value: an s3:// or https:// (http:// on loopback) prefix. */
export function normalizePrefix(p: string): string {
  if (!isRemoteUrl(p)) throw new RemoteError('REMOTE_BAD_URL', `${p}: --allow-remote expects s3://bucket/prefix or https://host/path`);
  parsePrefix(p);
  return /^s3:\/\/[^/]+$/i.test(p) ? `${p}/` : p;
}

/**
 * Makes `beton serve`'s prefixes the process's URL policy (url-policy.ts reads it): the
 * threads and children that fetch for the server (the page fetch thread, loader workers,
 * profile runs) follow redirects only within them. One server per process.
 */
export function applyRemotePrefixes(prefixes: readonly string[]): void {
  process.env[PREFIXES_ENV] = JSON.stringify(prefixes.map(normalizePrefix));
}

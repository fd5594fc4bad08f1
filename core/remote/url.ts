import { RemoteError } from './errors.js';

/**
 * A dataset's address in object storage or on a web server. `href` is what a request is
 * made to: the URL as WHATWG parsing normalises it (http), or the URL as given (s3).
 */
export type RemoteUrl =
  | { kind: 's3'; url: string; href: string; bucket: string; key: string }
  | { kind: 'http'; url: string; href: string; origin: string; path: string };

/** Whether `s` names a remote object (s3://, https://, http://) rather than a local path. */
export function isRemoteUrl(s: string): boolean {
  return /^(s3|https?):\/\//i.test(s);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const bad = (s: string, why: string): RemoteError => new RemoteError('REMOTE_BAD_URL', `${printable(s)}: ${why}`);

/** The URL as it can be printed on one line (control bytes shown as \xNN). */
export function printable(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Forms refused in any URL, before it is parsed: a server, a proxy and our own parser may
 * each read them differently, so a prefix check on one reading says nothing about the
 * path another one fetches (`/ok/%2e%2e/secret`, `/ok\..\secret`, a TAB inside `..`, which
 * WHATWG parsing drops). Refused, not normalised: no legitimate dataset URL needs them.
 */
function refuseAmbiguous(s: string, http: boolean): void {
  if (/[\x00-\x1f\x7f]/.test(s)) throw bad(s, 'control characters (TAB, newline, …) are not allowed in a URL');
  if (s.includes('\\')) throw bad(s, 'backslashes are not allowed in a URL (some servers read them as /)');
  const rest = s.replace(/^[a-z0-9]+:\/\//i, '');
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  if (authority.includes('@')) throw bad(s, 'credentials in the URL (user@host) are not allowed; use the environment or ~/.aws');
  const path = (slash < 0 ? '' : rest.slice(slash)).replace(/[?#].*$/s, '');
  if (path.split('/').some((seg) => seg === '.' || seg === '..'))
    throw bad(s, 'dot segments (. and ..) are not allowed in a URL or S3 key');
  if (!http) return;
  if (s.includes(' ')) throw bad(s, 'spaces must be percent-encoded (%20)');
  if (/%(2e|2f|5c|00)/i.test(path)) throw bad(s, 'encoded dots, slashes or backslashes (%2e, %2f, %5c) are not allowed in the path');
  for (const seg of path.split('/')) {
    try {
      decodeURIComponent(seg);
    } catch {
      throw bad(s, `"${seg}" is not valid percent-encoding`);
    }
  }
}

/**
 * Parses an s3:// or http(s):// URL. Plain http:// is refused unless the host is loopback
 * or BETON_ALLOW_HTTP=1: bytes and credentials over cleartext are not a silent default.
 * Ambiguous forms are refused first (refuseAmbiguous): every request any command or the
 * server makes goes through here, and so does every redirect (url-policy.ts).
 */
export function parseRemoteUrl(s: string, env: NodeJS.ProcessEnv = process.env): RemoteUrl {
  const m = /^s3:\/\/([^/]*)\/(.+)$/is.exec(s);
  if (m) {
    refuseAmbiguous(s, false);
    const bucket = m[1]!;
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      throw bad(s, `"${bucket}" is not a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)`);
    return { kind: 's3', url: s, href: s, bucket, key: m[2]! };
  }
  if (/^s3:\/\//i.test(s)) throw bad(s, 'an S3 URL is s3://bucket/key (the key is missing)');
  const http = /^https?:\/\//i.test(s);
  if (http) refuseAmbiguous(s, true);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw bad(s, 'not a valid URL');
  }
  u.hash = '';
  const ok = { kind: 'http' as const, url: s, href: u.href, origin: u.origin, path: u.pathname };
  if (u.protocol === 'https:') return ok;
  if (u.protocol === 'http:') {
    if (LOOPBACK.has(u.hostname) || env['BETON_ALLOW_HTTP'] === '1') return ok;
    throw bad(
      s,
      'plain http:// is allowed only to this machine (localhost); use https://, or set BETON_ALLOW_HTTP=1 if you trust the network',
    );
  }
  throw bad(s, 'only s3://, https:// and http:// (loopback) URLs are supported');
}

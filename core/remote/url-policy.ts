import { RemoteError } from './errors.js';
import { parseRemoteUrl, printable, type RemoteUrl } from './url.js';

/**
 * Which remote URLs a process may read: every request, and every redirect hop, is checked
 * here first. `prefixes: null` is any URL parseRemoteUrl accepts (the CLI, Electron);
 * `beton serve --allow-remote` gives prefixes. One function for both: the CLI and the
 * server cannot drift apart on what a URL means.
 */
export interface UrlPolicy {
  prefixes: readonly string[] | null;
}

/** Redirect hops followed at most per request. */
export const MAX_REDIRECTS = 5;

/**
 * The environment variable carrying `beton serve`'s prefixes (JSON) to the threads and
 * child processes that fetch for it (the page fetch thread, loader workers, profile
 * children): each opens its own client, and each must follow redirects only within them.
 */
export const PREFIXES_ENV = 'BETON_REMOTE_PREFIXES';

/** The process's policy: the prefixes `beton serve` set, else any URL. */
export function processPolicy(env: NodeJS.ProcessEnv = process.env): UrlPolicy {
  const v = env[PREFIXES_ENV];
  if (!v) return { prefixes: null };
  let p: unknown = null;
  try {
    p = JSON.parse(v);
  } catch {
    // Falls through: allows nothing.
  }
  // An unreadable value must not widen the policy: it allows nothing.
  return { prefixes: Array.isArray(p) && p.every((x) => typeof x === 'string') ? p : [] };
}

/** A parsed prefix: where (s3://bucket or an http origin) and the path segments under it. */
interface Prefix {
  where: string;
  segments: string[];
}

/** Path segments, percent-decoded (http; parseRemoteUrl checked they decode), without the trailing empty one. */
function segmentsOf(u: RemoteUrl): string[] {
  const segs = u.kind === 's3' ? u.key.split('/') : u.path.replace(/^\//, '').split('/').map(decodeURIComponent);
  if (segs[segs.length - 1] === '') segs.pop();
  return segs;
}

const whereOf = (u: RemoteUrl): string => (u.kind === 's3' ? `s3://${u.bucket}` : u.origin);

/**
 * Checks and normalises a prefix (--allow-remote): s3://bucket[/prefix] or
 * https://host/path (http:// on loopback). A query or fragment is refused: a prefix is a place.
 */
export function parsePrefix(p: string): Prefix {
  const bucketOnly = /^s3:\/\/([^/]+)\/?$/i.exec(p);
  const u = parseRemoteUrl(bucketOnly ? `s3://${bucketOnly[1]}/x` : p);
  if (u.kind === 'http' && /[?#]/.test(p)) throw new RemoteError('REMOTE_BAD_URL', `${printable(p)}: a prefix has no query or fragment`);
  return { where: whereOf(u), segments: bucketOnly ? [] : segmentsOf(u) };
}

/** Whether the (parsed, normalised) URL lies under one of the prefixes, compared segment by segment. */
function under(u: RemoteUrl, prefixes: readonly string[]): boolean {
  const where = whereOf(u);
  const segs = segmentsOf(u);
  return prefixes.some((raw) => {
    const p = parsePrefix(raw);
    return p.where === where && p.segments.length <= segs.length && p.segments.every((s, i) => segs[i] === s);
  });
}

/**
 * `url` parsed and checked against the policy, before any request is made for it:
 * REMOTE_BAD_URL for an ambiguous or unsupported form, REMOTE_FORBIDDEN outside the prefixes.
 */
export function checkUrl(url: string, policy: UrlPolicy): RemoteUrl {
  const u = parseRemoteUrl(url);
  if (policy.prefixes === null || under(u, policy.prefixes)) return u;
  throw new RemoteError(
    'REMOTE_FORBIDDEN',
    policy.prefixes.length
      ? `${printable(url)} is outside the remote prefixes this server may open (${policy.prefixes.join(', ')})`
      : `${printable(url)}: this server opens no remote datasets; start it with --allow-remote s3://bucket/prefix (or https://host/path)`,
  );
}

/**
 * The next hop of a redirect from `from` (a Location header), checked as a URL of its own:
 * relative locations resolve against `from`; an s3:// or other scheme is refused; a hop
 * outside the policy is refused and named (the redirect is never followed).
 */
export function checkRedirect(from: string, location: string | null, hop: number, policy: UrlPolicy): RemoteUrl {
  if (!location) throw new RemoteError('REMOTE_BAD_URL', `${printable(from)}: a redirect without a Location header`);
  if (hop > MAX_REDIRECTS) throw new RemoteError('REMOTE_BAD_URL', `${printable(from)}: more than ${MAX_REDIRECTS} redirects`);
  // The raw header too: resolving it against `from` would normalise away what a server may read otherwise.
  if (/[\x00-\x1f\x7f\\]|%(2e|2f|5c|00)|(^|\/)\.\.?(\/|$|[?#])/i.test(location))
    throw new RemoteError('REMOTE_BAD_URL', `${printable(from)}: refused a redirect to ${printable(location)} (an ambiguous path)`);
  let next: string;
  try {
    next = /^[a-z][a-z0-9+.-]*:/i.test(location) ? location : new URL(location, from).href;
  } catch {
    throw new RemoteError('REMOTE_BAD_URL', `${printable(from)}: redirected to an invalid URL ${printable(location)}`);
  }
  if (!/^https?:\/\//i.test(next))
    throw new RemoteError('REMOTE_BAD_URL', `${printable(from)}: redirected to ${printable(next)}, not http(s)`);
  try {
    return checkUrl(next, policy);
  } catch (e) {
    if (!(e instanceof RemoteError)) throw e;
    throw new RemoteError(e.code, `${printable(from)}: refused a redirect to ${e.message}`);
  }
}

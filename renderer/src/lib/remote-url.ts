/**
 * The Dataset screen's URL field, checked before anything is sent: the server parses the URL
 * again (core/remote/url.ts; the renderer imports no core code) and decides whether it may
 * open it (--allow-remote), so this only catches what is plainly not a dataset URL.
 */

/** Whether `s` names a remote object (s3://, https://, http://) rather than a local path. */
export function isRemoteUrl(s: string): boolean {
  return /^(s3|https?):\/\//i.test(s.trim());
}

/** Why `text` is not a URL of a dataset the app can open, in one line; null when it may be. */
export function remoteUrlProblem(text: string): string | null {
  const t = text.trim();
  const expected = 'Enter the URL of a .beton file: s3://bucket/key, https://host/path or http://host/path.';
  if (!t) return expected;
  if (!isRemoteUrl(t)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(t)?.[1];
    return scheme ? `${scheme}:// URLs cannot be opened here. ${expected}` : `"${t}" is not a URL. ${expected}`;
  }
  if (/^s3:\/\//i.test(t)) {
    const m = /^s3:\/\/([^/]+)\/(.+)$/i.exec(t);
    if (!m) return `${t}: an S3 URL is s3://bucket/key (the ${/^s3:\/\/[^/]+/i.test(t) ? 'key' : 'bucket'} is missing).`;
    return null;
  }
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return `${t} is not a valid URL. ${expected}`;
  }
  if (!u.hostname) return `${t}: the host is missing. ${expected}`;
  return null;
}

/**
 * The --allow-remote prefix that would let a server open `url`: its folder (s3://bucket/dir/,
 * https://host/dir/), the narrowest grant that covers it and its neighbours.
 */
export function allowPrefixFor(url: string): string {
  const t = url.trim();
  const cut = t.lastIndexOf('/');
  const head = /^[a-z0-9]+:\/\/[^/]*\//i.exec(t)?.[0].length ?? 0;
  return head > 0 && cut + 1 >= head ? t.slice(0, cut + 1) : t;
}

/**
 * The placeholder of a .beton field that takes a local path or a URL typed in (Profile's
 * sweep, Export): the server reads a URL only under its --allow-remote prefixes, and says so.
 */
export const PATH_OR_URL_PLACEHOLDER = '/data/train.beton or s3://bucket/train.beton';

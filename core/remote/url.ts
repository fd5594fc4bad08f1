import { RemoteError } from './errors.js';

/** A dataset's address in object storage or on a web server. */
export type RemoteUrl = { kind: 's3'; url: string; bucket: string; key: string } | { kind: 'http'; url: string };

/** Whether `s` names a remote object (s3://, https://, http://) rather than a local path. */
export function isRemoteUrl(s: string): boolean {
  return /^(s3|https?):\/\//i.test(s);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Parses an s3:// or http(s):// URL. Plain http:// is refused unless the host is loopback
 * or BETON_ALLOW_HTTP=1: bytes and credentials over cleartext are not a silent default.
 */
export function parseRemoteUrl(s: string, env: NodeJS.ProcessEnv = process.env): RemoteUrl {
  const m = /^s3:\/\/([^/]+)\/(.+)$/i.exec(s);
  if (m) {
    const bucket = m[1]!;
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      throw new RemoteError(
        'REMOTE_BAD_URL',
        `${s}: "${bucket}" is not a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)`,
      );
    return { kind: 's3', url: s, bucket, key: m[2]! };
  }
  if (/^s3:\/\//i.test(s)) throw new RemoteError('REMOTE_BAD_URL', `${s}: an S3 URL is s3://bucket/key (the key is missing)`);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new RemoteError('REMOTE_BAD_URL', `${s}: not a valid URL`);
  }
  if (u.protocol === 'https:') return { kind: 'http', url: s };
  if (u.protocol === 'http:') {
    if (LOOPBACK.has(u.hostname) || env['BETON_ALLOW_HTTP'] === '1') return { kind: 'http', url: s };
    throw new RemoteError(
      'REMOTE_BAD_URL',
      `${s}: plain http:// is allowed only to this machine (localhost); use https://, or set BETON_ALLOW_HTTP=1 if you trust the network`,
    );
  }
  throw new RemoteError('REMOTE_BAD_URL', `${s}: only s3://, https:// and http:// (loopback) URLs are supported`);
}

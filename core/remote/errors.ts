import { BetonError } from '../format/errors.js';

export type RemoteErrorCode =
  | 'REMOTE_BAD_URL'
  | 'REMOTE_FORBIDDEN'
  | 'REMOTE_BAD_RANGE'
  | 'REMOTE_NOT_FOUND'
  | 'REMOTE_ACCESS_DENIED'
  | 'REMOTE_CREDENTIALS'
  | 'REMOTE_UNAVAILABLE'
  | 'REMOTE_TIMEOUT'
  | 'REMOTE_CHANGED'
  | 'REMOTE_TRUNCATED'
  | 'REMOTE_UPLOAD_FAILED'
  | 'REMOTE_COPY_MISMATCH';

const HINTS: Record<RemoteErrorCode, string> = {
  REMOTE_BAD_URL: 'Use s3://bucket/key or https://host/path.',
  REMOTE_FORBIDDEN: 'Only URLs under the prefixes given with --allow-remote may be opened (redirects included).',
  REMOTE_BAD_RANGE:
    'The server (or a proxy) answered a range request with other bytes than asked; nothing was used. Use a server that supports HTTP ranges without re-encoding (Accept-Encoding: identity).',
  REMOTE_NOT_FOUND: 'Check the bucket and key (or the URL path), and the endpoint (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL).',
  REMOTE_ACCESS_DENIED: 'Check that your credentials may read (s3:GetObject) or write (s3:PutObject) this key, and the bucket policy.',
  REMOTE_CREDENTIALS:
    'Check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws/credentials (the AWS CLI uses the same settings).',
  REMOTE_UNAVAILABLE: 'The server failed repeatedly; check the endpoint and the network, then retry.',
  REMOTE_TIMEOUT: 'The server did not answer in time; check the endpoint and the network (BETON_REMOTE_TIMEOUT_MS sets the limit).',
  REMOTE_CHANGED: 'The object was replaced while it was being read; restart the read (or pin a version of the object).',
  REMOTE_TRUNCATED:
    'The answers ended early: check the network and any proxy, then retry; if the object itself is short, upload it again (beton cp).',
  REMOTE_UPLOAD_FAILED: 'Nothing was written at the key; check write permissions and the network, then retry.',
  REMOTE_COPY_MISMATCH: 'The copy does not match the source; retry the copy.',
};

/** A failure reaching or reading a remote object; the message names the URL. */
export class RemoteError extends BetonError<RemoteErrorCode> {
  override readonly name: string = 'RemoteError';
  constructor(code: RemoteErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { ...options, hint: HINTS[code] });
  }
}

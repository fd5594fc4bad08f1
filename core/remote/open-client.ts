import type { RangeClient } from './range-client.js';
import { HttpRangeClient } from './http-range-client.js';
import { parseRemoteUrl } from './url.js';

/** The ranged-read client for a URL: S3 (the SDK, imported now) or plain HTTP(S). */
export async function openRangeClient(url: string): Promise<RangeClient> {
  const u = parseRemoteUrl(url);
  if (u.kind === 'http') return new HttpRangeClient(url);
  const { S3RangeClient } = await import('./s3-range-client.js');
  return S3RangeClient.open(url, u.bucket, u.key);
}

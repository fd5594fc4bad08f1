import type { RangeClient } from './range-client.js';
import { HttpRangeClient } from './http-range-client.js';
import { checkUrl, processPolicy, type UrlPolicy } from './url-policy.js';

/**
 * The ranged-read client for a URL: S3 (the SDK, imported now) or plain HTTP(S). The URL
 * is checked against the policy (the process's by default) before any request.
 */
export async function openRangeClient(url: string, policy: UrlPolicy = processPolicy()): Promise<RangeClient> {
  const u = checkUrl(url, policy);
  if (u.kind === 'http') return new HttpRangeClient(url, policy);
  const { S3RangeClient } = await import('./s3-range-client.js');
  return S3RangeClient.open(url, u.bucket, u.key);
}

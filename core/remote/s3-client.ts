import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';

export type S3 = { client: S3Client; sdk: typeof S3Sdk };
/** One client per configuration (tests switch endpoints and keys within a process). */
const clients = new Map<string, Promise<S3>>();

/**
 * The process's one S3 client, built on first use: the SDK is imported only when an
 * s3:// URL is used, so commands on local files start as fast as before. Configuration is
 * the SDK's standard chain (what the AWS CLI uses): AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL,
 * AWS_PROFILE, ~/.aws/config and credentials, AWS_REGION. A custom endpoint (MinIO, a
 * test server) gets path-style addressing; a missing region defaults to us-east-1.
 */
export function s3Client(env: NodeJS.ProcessEnv = process.env): Promise<S3> {
  const key = ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_PROFILE', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']
    .map((k) => env[k] ?? '')
    .join('\n');
  let shared = clients.get(key);
  if (shared) return shared;
  shared = (async () => {
    // The SDK warns on stderr that Node 20 support ends in 2027: noise in every command's output.
    env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    const sdk = await import('@aws-sdk/client-s3');
    const endpoint = env['AWS_ENDPOINT_URL_S3'] ?? env['AWS_ENDPOINT_URL'];
    const base = { maxAttempts: 1, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) };
    let client = new sdk.S3Client(base);
    try {
      await client.config.region();
    } catch {
      client = new sdk.S3Client({ ...base, region: 'us-east-1' });
    }
    return { client, sdk };
  })();
  clients.set(key, shared);
  return shared;
}

/**
 * `beton build|merge … -o s3://bucket/key`: the output streamed to object storage as it is
 * written (remote/s3-output.ts: pages go up as parts, the head and the manifest at the end).
 * Loaded only when an output is a URL.
 */
import { S3Output } from '../remote/s3-output.js';

/** The upload of `url`, stopped by `signal`; the command writes through its open(). */
export function openS3Output(url: string, signal: AbortSignal): S3Output {
  return new S3Output(url, signal);
}

import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from '../native/regular-file.js';
import { RemoteError } from './errors.js';
import { s3Client } from './s3-client.js';
import { s3Error } from './s3-range-client.js';
import { parseRemoteUrl } from './url.js';

/** S3's rules: parts of at least 5 MiB (but the last), at most 10,000 of them. */
const MIN_PART = 5 * 2 ** 20;
const DEFAULT_PART = 16 * 2 ** 20;
const MAX_PARTS = 10_000;

export interface UploadOptions {
  signal?: AbortSignal;
  partSize?: number;
  concurrency?: number;
  onProgress?: (bytesDone: number, total: number) => void;
}

/** The part size for a file: the default, raised until the file fits in 10,000 parts. */
export function partSizeFor(size: number, wanted = DEFAULT_PART): number {
  return Math.max(MIN_PART, wanted, Math.ceil(size / MAX_PARTS));
}

/**
 * Uploads a complete local file to s3://bucket/key as a multipart upload (parts in
 * parallel) and returns the object's ETag. The object appears only when the upload is
 * completed: a failure or an abort (`signal`: Ctrl-C, SIGTERM) aborts the upload, so
 * nothing is left at the key. A process killed outright (kill -9) cannot abort: its parts
 * stay invisible until the bucket's lifecycle rule removes them (docs/remote.md).
 * The completed object's size and MD5-based ETag are checked against the file's.
 */
export async function uploadFile(path: string, url: string, opts: UploadOptions = {}): Promise<string> {
  const u = parseRemoteUrl(url);
  if (u.kind !== 's3') throw new RemoteError('REMOTE_BAD_URL', `${url}: writing is supported to s3:// URLs only`);
  const { client, sdk } = await s3Client();
  // Through the checked opener: the bytes read are those of a regular file (a FIFO or a
  // device swapped in after the caller's check is refused, not read), and the size is the
  // opened file's.
  const { fh, size } = await openRegular(path, 'upload source');
  let uploadId: string | undefined;
  try {
    const partSize = partSizeFor(size, opts.partSize);
    const count = Math.max(1, Math.ceil(size / partSize));
    const created = await client
      .send(new sdk.CreateMultipartUploadCommand({ Bucket: u.bucket, Key: u.key }), { abortSignal: opts.signal })
      .catch((e: unknown) => {
        throw s3Error(url, e);
      });
    uploadId = created.UploadId;
    const etags: string[] = new Array<string>(count);
    const md5s: Buffer[] = new Array<Buffer>(count);
    let next = 0;
    let done = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const k = next++;
        const len = Math.min(partSize, size - k * partSize);
        const buf = Buffer.alloc(len);
        await fh.read(buf, 0, len, k * partSize);
        md5s[k] = createHash('md5').update(buf).digest();
        opts.signal?.throwIfAborted();
        const r = await client
          .send(
            new sdk.UploadPartCommand({
              Bucket: u.bucket,
              Key: u.key,
              UploadId: uploadId,
              PartNumber: k + 1,
              Body: buf,
              ContentLength: len,
            }),
            { abortSignal: opts.signal },
          )
          .catch((e: unknown) => {
            throw opts.signal?.aborted ? opts.signal.reason : s3Error(url, e);
          });
        etags[k] = r.ETag!;
        done += len;
        opts.onProgress?.(done, size);
      }
    };
    await Promise.all(Array.from({ length: Math.min(count, opts.concurrency ?? 4) }, worker));
    opts.signal?.throwIfAborted();
    const completed = await client
      .send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: u.bucket,
          Key: u.key,
          UploadId: uploadId,
          MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
        }),
      )
      .catch((e: unknown) => {
        throw s3Error(url, e);
      });
    uploadId = undefined;
    const head = await client.send(new sdk.HeadObjectCommand({ Bucket: u.bucket, Key: u.key })).catch((e: unknown) => {
      throw s3Error(url, e);
    });
    const etag = head.ETag ?? completed.ETag ?? '';
    if (head.ContentLength !== size)
      throw new RemoteError('REMOTE_COPY_MISMATCH', `${url}: the uploaded object has ${head.ContentLength} bytes, ${path} has ${size}`);
    // AWS gives a multipart object the MD5 of its parts' MD5s, "-N"; some servers (s3rver,
    // MinIO in some modes) the whole object's MD5. Either is checked; an ETag of neither
    // shape (encrypted with KMS) leaves the size as the check.
    const multipart = `"${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${count}"`;
    if (/^"[0-9a-f]{32}-\d+"$/.test(etag) && etag !== multipart)
      throw new RemoteError('REMOTE_COPY_MISMATCH', `${url}: the uploaded object's ETag ${etag} differs from ${path}'s ${multipart}`);
    if (/^"[0-9a-f]{32}"$/.test(etag)) {
      const whole = `"${await md5Of(fh, size)}"`;
      if (etag !== whole)
        throw new RemoteError('REMOTE_COPY_MISMATCH', `${url}: the uploaded object's MD5 ${etag} differs from ${path}'s ${whole}`);
    }
    return etag;
  } catch (e) {
    if (uploadId) {
      // Best effort: a failed abort leaves parts only the lifecycle rule will remove.
      await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: u.bucket, Key: u.key, UploadId: uploadId })).catch(() => undefined);
    }
    if (e instanceof RemoteError || (e as Error).name === 'InterruptedError') throw e;
    throw new RemoteError('REMOTE_UPLOAD_FAILED', `${url}: upload of ${path} failed (${(e as Error).message})`, { cause: e });
  } finally {
    await fh.close();
  }
}

async function md5Of(fh: FileHandle, size: number): Promise<string> {
  const h = createHash('md5');
  const buf = Buffer.alloc(Math.min(size, 16 * 2 ** 20));
  for (let at = 0; at < size;) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.byteLength, size - at), at);
    if (bytesRead <= 0) break;
    h.update(buf.subarray(0, bytesRead));
    at += bytesRead;
  }
  return h.digest('hex');
}

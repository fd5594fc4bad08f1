import { createHash, randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkedDestination, checkReplaceable } from '../native/destination.js';
import { RemoteError } from './errors.js';
import { openRangeClient } from './open-client.js';

const CHUNK = 16 * 2 ** 20;

export interface DownloadOptions {
  signal?: AbortSignal;
  concurrency?: number;
  onProgress?: (bytesDone: number, total: number) => void;
}

/**
 * Copies a remote object to a local file with parallel ranged GETs (16 MiB each, the
 * first one's ETag pinned for the rest, so a replaced object fails the copy instead of
 * mixing versions), into a temporary file in the destination's folder renamed when
 * complete; the destination must be a regular file or absent, checked before and again at
 * the rename. Checked: the size, and
 * the MD5 where the ETag is one (a single-part S3 upload). Returns the bytes copied.
 */
export async function downloadFile(url: string, path: string, opts: DownloadOptions = {}): Promise<number> {
  // Before any request: the destination must be a regular file or absent (destination.ts).
  checkedDestination(path);
  const client = await openRangeClient(url);
  const first = await client.get(0, CHUNK, null);
  const { size, etag } = first;
  // A fresh name, created exclusively: nothing planted at it (a link) is followed.
  const tmp = join(dirname(path), `.${basename(path)}.part-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fh = await open(tmp, 'wx+');
  let ok = false;
  try {
    await fh.write(first.bytes, 0, first.bytes.byteLength, 0);
    let done = first.bytes.byteLength;
    const count = Math.ceil(size / CHUNK);
    let next = 1;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const k = next++;
        opts.signal?.throwIfAborted();
        const r = await client.get(k * CHUNK, Math.min(CHUNK, size - k * CHUNK), etag);
        await fh.write(r.bytes, 0, r.bytes.byteLength, k * CHUNK);
        done += r.bytes.byteLength;
        opts.onProgress?.(done, size);
      }
    };
    await Promise.all(Array.from({ length: Math.min(Math.max(0, count - 1), opts.concurrency ?? 8) }, worker));
    if (done !== size) throw new RemoteError('REMOTE_TRUNCATED', `${url}: copied ${done} bytes of ${size}`);
    const plainMd5 = etag && /^"?[0-9a-f]{32}"?$/.test(etag) ? etag.replace(/"/g, '') : null;
    if (plainMd5) {
      const h = createHash('md5');
      const buf = Buffer.alloc(CHUNK);
      for (let at = 0; at < size; at += CHUNK) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - at), at);
        h.update(buf.subarray(0, bytesRead));
      }
      const got = h.digest('hex');
      if (got !== plainMd5)
        throw new RemoteError('REMOTE_COPY_MISMATCH', `${url}: the copy's MD5 ${got} differs from the object's ETag ${plainMd5}`);
    }
    await fh.close();
    checkReplaceable(path);
    await rename(tmp, path);
    ok = true;
    return size;
  } finally {
    if (!ok) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
}

/**
 * `beton cp`: a dataset copied between local disk and object storage, checked (size, and the
 * MD5 / multipart ETag where the server gives one). The CLI has told which side is a URL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkedDestination } from '../native/destination.js';
import { openRegular } from '../native/regular-file.js';
import { downloadFile } from '../remote/download.js';
import { uploadFile } from '../remote/s3-upload.js';
import { isRemoteUrl, parseRemoteUrl } from '../remote/url.js';

/** The last segment of a URL's path or key: the file name a copy into a folder gets. */
function objectName(url: string): string | undefined {
  const u = parseRemoteUrl(url);
  return (u.kind === 's3' ? u.key : decodeURIComponent(u.path)).split('/').filter(Boolean).pop();
}

/**
 * Copies `src` to `dst` (one of them a URL; a URL destination is s3://) and answers the bytes
 * copied: URL → FILE (parallel ranged GETs, ETag pinned), FILE → s3:// (multipart upload; the
 * object appears only when complete), URL → s3:// through a temporary local file.
 */
export async function copyDataset(src: string, dst: string, signal: AbortSignal): Promise<number> {
  const opts = { signal };
  if (!isRemoteUrl(dst)) {
    // A folder is a directory target (the object's name inside it); a device, a FIFO or a link is refused.
    const target = checkedDestination(resolve(dst), objectName(src));
    return downloadFile(src, target, opts);
  }
  if (!isRemoteUrl(src)) {
    // A regular file only: a FIFO would hang the upload, /dev/zero upload an empty object.
    const { fh, size } = await openRegular(resolve(src), 'copy source');
    await fh.close();
    await uploadFile(resolve(src), dst, opts);
    return size;
  }
  const dir = await mkdtemp(join(tmpdir(), 'beton-cp-'));
  try {
    const tmp = join(dir, 'object');
    const bytes = await downloadFile(src, tmp, opts);
    await uploadFile(tmp, dst, opts);
    return bytes;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

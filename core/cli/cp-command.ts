import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkedDestination } from '../native/destination.js';
import { openRegular } from '../native/regular-file.js';
import { downloadFile } from '../remote/download.js';
import { uploadFile } from '../remote/s3-upload.js';
import { isRemoteUrl, parseRemoteUrl } from '../remote/url.js';
import { abortOnSignals } from './signals.js';
import { parseFlags, type FlagTable } from './flags/flag-table.js';
import { UsageError } from './usage-error.js';

/** cp takes no flags: the table says so (an unknown flag is refused as anywhere else). */
export const CP_FLAGS = {} satisfies FlagTable;

export const CP_HELP = `beton cp SRC DST

Copies a dataset between local disk and object storage: s3://bucket/key → FILE (parallel
ranged GETs, ETag pinned), FILE → s3://bucket/key (parallel multipart upload; the object
appears only when complete), or URL → s3:// (through a temporary local file). The copy is
checked: size, and the MD5 / multipart ETag where the server gives one.
S3 settings are the AWS CLI's (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3, ~/.aws);
see docs/remote.md.`;

/** The last segment of a URL's path or key: the file name a copy into a folder gets. */
function objectName(url: string): string | undefined {
  const u = parseRemoteUrl(url);
  return (u.kind === 's3' ? u.key : decodeURIComponent(u.path)).split('/').filter(Boolean).pop();
}

export async function cpCommand(argv: string[]): Promise<number> {
  const { positionals } = parseFlags(argv, CP_FLAGS);
  if (positionals.length !== 2) throw new UsageError('expected SRC and DST');
  const [src, dst] = positionals as [string, string];
  if (!isRemoteUrl(src) && !isRemoteUrl(dst))
    throw new UsageError('one of SRC and DST must be a URL (s3:// or https://); use cp for local files');
  if (isRemoteUrl(dst) && parseRemoteUrl(dst).kind !== 's3')
    throw new UsageError(`${dst}: copies are written to s3:// URLs or local files only`);
  const signals = abortOnSignals({ what: 'the copy', outcome: 'nothing was left at the destination' });
  const t0 = performance.now();
  try {
    let bytes: number;
    if (!isRemoteUrl(dst)) {
      // A folder is a directory target (the object's name inside it); a device, a FIFO or a link is refused.
      const target = checkedDestination(resolve(dst), objectName(src));
      bytes = await downloadFile(src, target, { signal: signals.signal });
    } else if (!isRemoteUrl(src)) {
      // A regular file only: a FIFO would hang the upload, /dev/zero upload an empty object.
      const { fh, size } = await openRegular(resolve(src), 'copy source');
      await fh.close();
      bytes = size;
      await uploadFile(resolve(src), dst, { signal: signals.signal });
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'beton-cp-'));
      try {
        const tmp = join(dir, 'object');
        bytes = await downloadFile(src, tmp, { signal: signals.signal });
        await uploadFile(tmp, dst, { signal: signals.signal });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    const s = (performance.now() - t0) / 1000;
    process.stdout.write(
      `${src} → ${dst}: ${bytes} bytes in ${s.toFixed(1)} s (${(bytes / 2 ** 20 / Math.max(s, 1e-3)).toFixed(1)} MiB/s), checked\n`,
    );
    return 0;
  } finally {
    signals.dispose();
  }
}

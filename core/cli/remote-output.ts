import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadFile } from '../remote/s3-upload.js';
import { isRemoteUrl, parseRemoteUrl } from '../remote/url.js';
import { abortOnSignals } from './signals.js';
import { UsageError } from './usage-error.js';

/** The value of -o / --output in a build's argv, and where it sits (null: not given). */
function outputArg(argv: string[]): { value: string; at: number; inline: boolean } | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '-o' || a === '--output') && i + 1 < argv.length) return { value: argv[i + 1]!, at: i + 1, inline: false };
    if (a.startsWith('--output=')) return { value: a.slice('--output='.length), at: i, inline: true };
  }
  return null;
}

/**
 * `beton build … -o s3://bucket/key`: the build writes its file (and manifest) in a
 * temporary local folder exactly as for a local output — so the object is byte-identical
 * to a local build — then uploads it as a multipart upload (s3-upload.ts) and removes the
 * folder. The object appears only when complete: a failed or interrupted build uploads
 * nothing, an interrupted upload is aborted. Other commands' argv pass through unchanged.
 */
/** The URL the build being run will be uploaded to (null: a local output): build --check says its result is not kept. */
let uploadTarget: string | null = null;
export const pendingUpload = (): string | null => uploadTarget;

export async function withRemoteOutput(argv: string[], run: (argv: string[]) => Promise<number>): Promise<number> {
  const out = outputArg(argv);
  if (!out || !isRemoteUrl(out.value)) return run(argv);
  const url = out.value;
  if (parseRemoteUrl(url).kind !== 's3') throw new UsageError(`${url}: a build is written to a local file or an s3:// URL`);
  if (argv.some((a) => a === '--shards' || a.startsWith('--shards=') || a === '--shard' || a.startsWith('--shard=')))
    throw new UsageError('--shard/--shards write local files; build the shards locally, merge, then beton cp to s3://');
  const dir = await mkdtemp(join(tmpdir(), 'beton-build-'));
  try {
    const name = url.slice(url.lastIndexOf('/') + 1) || 'out.beton';
    const local = join(dir, name);
    const args = [...argv];
    args[out.at] = out.inline ? `--output=${local}` : local;
    uploadTarget = url;
    let code: number;
    try {
      code = await run(args);
    } finally {
      uploadTarget = null;
    }
    if (code !== 0 || !existsSync(local)) return code;
    const signals = abortOnSignals({ what: 'the upload', outcome: 'the multipart upload was aborted; nothing was written at the key' });
    try {
      await uploadFile(local, url, { signal: signals.signal });
      for (const side of ['.manifest.json', '.skipped.json'])
        if (existsSync(local + side)) await uploadFile(local + side, url + side, { signal: signals.signal });
    } finally {
      signals.dispose();
    }
    // --json: stdout stays one JSON document; the note goes to stderr.
    (argv.includes('--json') ? process.stderr : process.stdout).write(`uploaded to ${url}\n`);
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

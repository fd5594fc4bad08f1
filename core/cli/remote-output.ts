import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamTarget } from '../writer/output-file.js';
import { isRemoteUrl, parseRemoteUrl } from '../remote/url.js';
import { abortOnSignals } from './signals.js';
import { UsageError } from './usage-error.js';

/** What a command writing to s3:// gets from withRemoteOutput: the stream its write goes to. */
export interface RemoteOutputContext {
  /** Starts the upload; called once, when the write starts (`expectedBytes`: the output's size when known). */
  openStream(expectedBytes?: number): Promise<StreamTarget>;
}

export type RemoteAwareCommand = (argv: string[], ctx?: RemoteOutputContext) => Promise<number>;

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
 * `beton build|merge … -o s3://bucket/key`: the command writes to a local name in a
 * temporary folder, through a stream (core/remote/s3-output.ts) that uploads the file's
 * pages as parts while they are written; only the head (header and tables, written last)
 * and the tail stay on local disk (a sparse file), and go up at the end with the manifest,
 * before the upload completes. One signal guard covers every phase: SIGINT/SIGTERM/SIGHUP
 * exit 130/143/129 with a message saying what is at the key. Other argv pass through.
 */
export async function withRemoteOutput(argv: string[], run: RemoteAwareCommand, what: string): Promise<number> {
  const out = outputArg(argv);
  if (!out || !isRemoteUrl(out.value)) return run(argv);
  const url = out.value;
  if (parseRemoteUrl(url).kind !== 's3') throw new UsageError(`${url}: a build is written to a local file or an s3:// URL`);
  if (argv.some((a) => a === '--shards' || a.startsWith('--shards=')))
    throw new UsageError('--shards N --emit writes job files for local outputs; run each job with --shard k/N -o s3://…/shard-k.beton');
  // The local file holds only the head and tail of a streamed output: nothing to check there.
  if (argv.includes('--check'))
    throw new UsageError('--check reads the output file: build locally with --check, then beton cp it to s3://');
  const dir = await mkdtemp(join(tmpdir(), 'beton-build-'));
  // First, so that no phase (the build's start, the upload's end) is left to Node's default.
  const signals = abortOnSignals({
    what: 'the upload',
    outcome: `${url} may hold a multipart upload the bucket's lifecycle rule will remove (docs/remote.md)`,
    cleanupSync: () => rmSync(dir, { recursive: true, force: true }),
  });
  const { openS3Output } = await import('../app/streamed-output.js');
  const output = openS3Output(url, signals.signal);
  try {
    const name = url.slice(url.lastIndexOf('/') + 1) || 'out.beton';
    const local = join(dir, name);
    const args = [...argv];
    args[out.at] = out.inline ? `--output=${local}` : local;
    let opened = false;
    const code = await run(args, {
      openStream: (expectedBytes) => {
        opened = true;
        return output.open(expectedBytes);
      },
    });
    if (code !== 0) throw new Exit(code);
    // --schema-only, --advise: nothing written, nothing to send.
    if (!opened) return code;
    await output.finish(local);
    // --json: stdout stays one JSON document; the note goes to stderr.
    (argv.includes('--json') ? process.stderr : process.stdout).write(`uploaded to ${url}\n`);
    return 0;
  } catch (e) {
    const reported = await output.fail(e, what);
    if (reported instanceof Exit) return reported.code;
    throw reported;
  } finally {
    // The folder goes first: a signal after dispose() gets Node's default (the process ends
    // at once), and must find nothing left to clean up.
    await rm(dir, { recursive: true, force: true });
    signals.dispose();
  }
}

/** A command that ended with a non-zero code (its own message printed): the upload is aborted all the same. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BetonEncodeError, BetonError } from '../../format/errors.js';
import { openRegularSync } from '../../native/regular-file.js';

/**
 * ffmpeg and ffprobe, run as child processes (no shell): ffprobe for a video's size and
 * frame rate, ffmpeg to decode it to raw RGB frames streamed through a pipe, so a long
 * video is never held whole.
 */
export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

/** Why a video cannot be read: becomes the skip reason (onError 'skip') or the build's error ('fail'). */
export class VideoReadError extends BetonError<'BAD_VIDEO'> {
  override readonly name: string = 'VideoReadError';
  constructor(message: string) {
    super('BAD_VIDEO', message);
  }
}

const INSTALL_HINT =
  'install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg) or give its path (--ffmpeg PATH, or "ffmpeg" in the source config)';

function runs(cmd: string): boolean {
  const r = spawnSync(cmd, ['-version'], { stdio: 'ignore', timeout: 20_000 });
  return !r.error && r.status === 0;
}

/** ffprobe beside a given ffmpeg (same folder, same naming), else on PATH. */
function ffprobeFor(ffmpeg: string): string {
  const name = basename(ffmpeg).replace(/ffmpeg/i, 'ffprobe');
  return ffmpeg.includes('/') || ffmpeg.includes('\\') ? join(dirname(ffmpeg), name) : name;
}

/** The tools to use; fails with an install hint when ffmpeg or ffprobe does not run. */
export function findFfmpeg(ffmpeg?: string): FfmpegTools {
  const tools = { ffmpeg: ffmpeg ?? process.env.BETON_FFMPEG ?? 'ffmpeg', ffprobe: '' };
  tools.ffprobe = ffprobeFor(tools.ffmpeg);
  if (!runs(tools.ffmpeg))
    throw new BetonEncodeError('BAD_OPTIONS', `video sources need ffmpeg, but "${tools.ffmpeg}" does not run; ${INSTALL_HINT}`);
  if (!runs(tools.ffprobe))
    throw new BetonEncodeError(
      'BAD_OPTIONS',
      `video sources need ffprobe (it comes with ffmpeg), but "${tools.ffprobe}" does not run; ${INSTALL_HINT}`,
    );
  return tools;
}

/** Whether ffmpeg and ffprobe can be run (tests and benchmarks skip without them). */
export function ffmpegAvailable(ffmpeg?: string): boolean {
  try {
    findFfmpeg(ffmpeg);
    return true;
  } catch {
    return false;
  }
}

export interface VideoInfo {
  /** Size of the decoded frames (after the rotation ffmpeg applies). */
  width: number;
  height: number;
  /** The stream's frame rate (avg_frame_rate, else r_frame_rate), [0, 1] when unknown. */
  fps: [number, number];
  /** Seconds, when the container says. */
  duration: number | null;
}

interface ProbeJson {
  streams?: Array<{
    width?: number;
    height?: number;
    r_frame_rate?: string;
    avg_frame_rate?: string;
    tags?: { rotate?: string };
    side_data_list?: Array<{ rotation?: number }>;
  }>;
  format?: { duration?: string };
}

function parseRate(s: string | undefined): [number, number] | null {
  const m = /^(\d+)\/(\d+)$/.exec(s ?? '');
  if (!m || Number(m[1]) === 0 || Number(m[2]) === 0) return null;
  return [Number(m[1]), Number(m[2])];
}

/** The last meaningful line of ffmpeg's stderr, for messages. */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'no message';
}

/**
 * Opens the video here (a regular file, and under `beton serve` still inside the served
 * folders: core/native/confined-opens.ts) and spawns `cmd` with that descriptor as its fd 3;
 * the tool reads `/dev/fd/3`, never the path string: a folder swapped for a link after the
 * check cannot hand ffmpeg a file from outside (issue 19 item 4). /dev/fd of a regular file
 * stays seekable (Linux reopens the same file), which MP4s with the index at the end need.
 */
function spawnOnFile(cmd: string, path: string, args: (input: string) => string[]): ChildProcess {
  let fd: number;
  try {
    fd = openRegularSync(path, 'video').fd;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new VideoReadError(err.code === 'ENOENT' ? 'the file does not exist' : err.message);
  }
  try {
    return spawn(cmd, args('/dev/fd/3'), { stdio: ['ignore', 'pipe', 'pipe', fd] });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
}

/** Reads a video's first video stream's size and rate with ffprobe. */
export function probeVideo(tools: FfmpegTools, path: string): Promise<VideoInfo> {
  const args = [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=width,height,r_frame_rate,avg_frame_rate:stream_tags=rotate:stream_side_data=rotation:format=duration',
    '-of',
    'json',
  ];
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnOnFile(tools.ffprobe, path, (input) => [...args, input]);
    } catch (e) {
      return reject(e as Error);
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < 1 << 20) stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8192)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let spawnError: Error | null = null;
    child.once('error', (e) => (spawnError = e));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (spawnError || code !== 0)
        return reject(
          new VideoReadError(`ffprobe cannot read it: ${lastLine(stderr || (spawnError?.message ?? `exit ${code ?? signal}`))}`),
        );
      let doc: ProbeJson;
      try {
        doc = JSON.parse(String(stdout)) as ProbeJson;
      } catch {
        return reject(new VideoReadError('ffprobe printed no readable description'));
      }
      const s = doc.streams?.[0];
      if (!s) return reject(new VideoReadError('it has no video stream'));
      if (!s.width || !s.height) return reject(new VideoReadError('ffprobe reports no frame size for its video stream'));
      const rotation = Number(s.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? s.tags?.rotate ?? 0);
      const turned = Math.abs(Math.round(rotation / 90)) % 2 === 1;
      const fps = parseRate(s.avg_frame_rate) ?? parseRate(s.r_frame_rate) ?? [0, 1];
      const duration = Number(doc.format?.duration);
      resolve({
        width: turned ? s.height : s.width,
        height: turned ? s.width : s.height,
        fps,
        duration: Number.isFinite(duration) ? duration : null,
      });
    });
  });
}

export interface FrameStreamOptions {
  width: number;
  height: number;
  /** Resample to this rate (ffmpeg -vf fps=F); null = every decoded frame. */
  fps?: number | null;
  /** Seconds into the video where decoding starts / ends. */
  start?: number | null;
  end?: number | null;
}

/** Keeps a running ffmpeg from holding the process open while its consumer is not reading. */
function hold(child: ChildProcess, on: boolean): void {
  for (const h of [child, child.stdout, child.stderr] as Array<{ ref?: () => void; unref?: () => void } | null>) {
    if (on) h?.ref?.();
    else h?.unref?.();
  }
}

/** Kills an ffmpeg whose frame stream was abandoned without being closed (a failed build). */
const orphans = new FinalizationRegistry<ChildProcess>((child) => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/**
 * Decodes a video to RGB frames (width·height·3 bytes each), streamed: ffmpeg writes into
 * a pipe and blocks when the consumer stops pulling, so memory stays at a few frames.
 * Ending the iteration early kills ffmpeg. Fails with VideoReadError (ffmpeg's last
 * message) when ffmpeg exits with an error.
 */
export async function* rawFrames(tools: FfmpegTools, path: string, o: FrameStreamOptions): AsyncGenerator<Uint8Array> {
  const args = ['-nostdin', '-hide_banner', '-v', 'error'];
  if (o.start) args.push('-ss', String(o.start));
  args.push('-i', '/dev/fd/3');
  if (o.end !== null && o.end !== undefined) args.push('-t', String(Math.max(0, o.end - (o.start ?? 0))));
  if (o.fps) args.push('-vf', `fps=${o.fps}`);
  args.push('-an', '-sn', '-dn', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1');
  const child = spawnOnFile(tools.ffmpeg, path, () => args);
  const token = {};
  orphans.register(token, child, token);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (stderr = (stderr + d).slice(-8192)));
  let spawnError: Error | null = null;
  const closed = new Promise<number | null>((resolve) => {
    child.once('error', (e) => {
      spawnError = e;
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  const frameSize = o.width * o.height * 3;
  let frame = new Uint8Array(frameSize);
  let fill = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let off = 0;
      while (off < chunk.length) {
        const n = Math.min(frameSize - fill, chunk.length - off);
        frame.set(chunk.subarray(off, off + n), fill);
        fill += n;
        off += n;
        if (fill === frameSize) {
          hold(child, false);
          yield frame;
          hold(child, true);
          frame = new Uint8Array(frameSize);
          fill = 0;
        }
      }
    }
    const code = await closed;
    if (spawnError) throw new VideoReadError(`cannot run ffmpeg: ${(spawnError as Error).message}`);
    if (code !== 0) throw new VideoReadError(`ffmpeg failed (exit code ${code}): ${lastLine(stderr)}`);
    if (fill !== 0) throw new VideoReadError(`ffmpeg's output ended inside a frame (${fill} of ${frameSize} bytes)`);
  } finally {
    orphans.unregister(token);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

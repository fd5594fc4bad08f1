// Issue 19 item 4, videos: ffprobe and ffmpeg used to open the path string they were given,
// so a folder swapped for a link after beton serve's check handed them a file from outside.
// Now the video is opened here (regular file, descriptor re-checked inside the served
// folders: core/native/confined-opens.ts) and the tools read that descriptor (/dev/fd/3).
// Deterministic: the folder is a link to outside for the whole test, as if the swap happened
// right after the check.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegAvailable, findFfmpeg, probeVideo, rawFrames } from '../../core/sources/video/video-ffmpeg.js';
import { FsAccess } from '../../core/services/fs-access.js';
import { requires } from '../helpers/requires.js';

const HAVE_FFMPEG = requires('ffmpeg and ffprobe', 'apt-get install -y ffmpeg (.ci/run installs it)', ffmpegAvailable());
const base = mkdtempSync(join(tmpdir(), 'beton-video-confined-'));
const served = join(base, 'served');
const outside = join(base, 'outside');
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(!HAVE_FFMPEG)('videos read through a checked descriptor', () => {
  beforeAll(() => {
    mkdirSync(join(served, 'inside'), { recursive: true });
    mkdirSync(outside);
    // MP4 with its index at the end: reading it through /dev/fd/3 needs seeking.
    const make = (color: string, out: string): void =>
      void execFileSync(
        'ffmpeg',
        ['-y', '-v', 'error', '-f', 'lavfi', '-i', `color=${color}:s=16x16:r=4:d=1`, '-pix_fmt', 'yuv420p', out],
        {
          timeout: 60_000,
        },
      );
    make('blue', join(served, 'inside', 'a.mp4'));
    make('red', join(outside, 'a.mp4'));
    symlinkSync(outside, join(served, 'swapped'));
    new FsAccess([served]); // beton serve confined to `served`
  }, 90_000);

  it('a video inside the served folder probes and decodes (seekable through /dev/fd)', async () => {
    const tools = findFfmpeg();
    const path = join(served, 'inside', 'a.mp4');
    const info = await probeVideo(tools, path);
    expect([info.width, info.height]).toEqual([16, 16]);
    let frames = 0;
    for await (const f of rawFrames(tools, path, { width: 16, height: 16 })) {
      expect(f[2]! > 200 && f[0]! < 60, `pixel ${f[0]},${f[1]},${f[2]}`).toBe(true); // blue
      frames++;
    }
    expect(frames).toBe(4);
  }, 60_000);

  it('a video whose folder became a link to outside is refused by ffprobe and ffmpeg alike', async () => {
    const tools = findFfmpeg();
    const path = join(served, 'swapped', 'a.mp4');
    await expect(probeVideo(tools, path)).rejects.toThrow(/outside the served folders/);
    const read = async (): Promise<number> => {
      let n = 0;
      for await (const _ of rawFrames(tools, path, { width: 16, height: 16 })) n++;
      return n;
    };
    await expect(read()).rejects.toThrow(/outside the served folders/);
  }, 60_000);
});

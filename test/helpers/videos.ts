/**
 * Small test videos made by ffmpeg's lavfi sources: one file, or a video folder
 * (root/<class>/v.avi, as UCF101) of one colour per class. Callers check ffmpeg with
 * requires() first.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface TestVideoOptions {
  /** WxH (default 32x24). */
  size?: string;
  fps?: number;
  seconds?: number;
  /** 'color' (a flat colour, default) or 'testsrc' framed by a box of the colour. */
  pattern?: 'color' | 'testsrc';
  /** MJPEG quality (lower is better; default 2). */
  quality?: number;
}

export function writeTestVideo(out: string, colour: string, o: TestVideoOptions = {}): void {
  const { size = '32x24', fps = 10, seconds = 2, pattern = 'color', quality = 2 } = o;
  const input = pattern === 'color' ? `color=c=${colour}:s=${size}:r=${fps}:d=${seconds}` : `testsrc=s=${size}:r=${fps}:d=${seconds}`;
  const filter = pattern === 'testsrc' ? ['-vf', `drawbox=c=${colour}:t=4`] : [];
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', input, ...filter, '-c:v', 'mjpeg', '-q:v', String(quality), out], {
    timeout: 60_000,
  });
}

/** root/<class>/v.avi for each class → colour. Returns root. */
export function writeVideoFolder(root: string, classes: Readonly<Record<string, string>>, o: TestVideoOptions = {}): string {
  for (const [cls, colour] of Object.entries(classes)) {
    mkdirSync(join(root, cls), { recursive: true });
    writeTestVideo(join(root, cls, 'v.avi'), colour, o);
  }
  return root;
}

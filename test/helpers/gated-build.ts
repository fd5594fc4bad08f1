/**
 * A `beton build` that cannot finish until the test lets it (issue 33 item 1): a build of a
 * two-class video folder whose `--ffmpeg` is a wrapper script. The first decode runs; the
 * second waits until the test creates the gate's `open` file (and says so by creating
 * `waiting`). A signal sent while `waiting` exists therefore lands while the build is
 * running — its temporary file is there, the first clip written — and a build that ignored
 * the signal would, once the gate opens, finish with exit 0 and an output: a test that
 * requires 128 + n and no output fails then, instead of counting the build as "finished
 * before the signal". Callers check ffmpeg with requires() first (videos need it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './cli.js';
import { writeVideoFolder } from './videos.js';

export interface GatedBuild {
  child: ChildProcess;
  /** stderr so far. */
  stderr(): string;
  /** Resolves once the second decode waits at the gate (rejects after `maxMs`). */
  blocked(maxMs?: number): Promise<void>;
  /** Lets every waiting and later decode run. */
  open(): void;
  /** Whether the build's temporary file appears in `folder` within `maxMs` (polled): it is writing. */
  writing(folder: string, maxMs?: number): Promise<boolean>;
  closed: Promise<{ status: number | null; signal: NodeJS.Signals | null }>;
}

/** Where the gate's ffmpeg lives, and the video folder: made once per `dir`. */
export function gatedSetup(dir: string): { videos: string; gate: string } {
  const videos = join(dir, 'gated-videos');
  const gate = join(dir, 'gate');
  if (existsSync(gate)) return { videos, gate };
  writeVideoFolder(videos, { a: 'red', b: 'blue' }, { seconds: 1 });
  mkdirSync(gate);
  return { videos, gate };
}

/** Starts `beton build` over the gated video folder into `out`; every call gets its own gate. */
export function startGatedBuild(dir: string, out: string, name: string): GatedBuild {
  const { videos } = gatedSetup(dir);
  const gate = join(dir, `gate-${name}`);
  mkdirSync(gate);
  // ffprobe is looked up beside the given ffmpeg: the real one, ungated.
  symlinkSync('/usr/bin/ffprobe', join(gate, 'ffprobe'));
  writeFileSync(
    join(gate, 'ffmpeg'),
    `#!/bin/sh
G=$(dirname "$0")
if [ "$1" != "-version" ]; then
  echo x >> "$G/calls"
  if [ "$(wc -l < "$G/calls")" -ge 2 ]; then
    touch "$G/waiting"
    i=0
    # bounded: 120 s at most, whatever the test does
    while [ ! -e "$G/open" ] && [ $i -lt 6000 ]; do sleep 0.02; i=$((i+1)); done
  fi
fi
exec ffmpeg "$@"
`,
  );
  chmodSync(join(gate, 'ffmpeg'), 0o755);
  const child = spawn(
    process.execPath,
    [CLI, 'build', videos, '-o', out, '--clip-length', '5', '--ffmpeg', join(gate, 'ffmpeg'), '--workers', '1'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (status, signal) => r({ status, signal })),
  );
  let exited = false;
  void closed.then(() => (exited = true));
  return {
    child,
    stderr: () => err,
    closed,
    open: () => writeFileSync(join(gate, 'open'), ''),
    writing: async (folder, maxMs = 20_000) => {
      const t0 = performance.now();
      while (!readdirSync(folder).some((f) => f.includes('.tmp-'))) {
        if (performance.now() - t0 > maxMs) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    },
    blocked: async (maxMs = 60_000) => {
      const t0 = performance.now();
      while (!existsSync(join(gate, 'waiting'))) {
        if (exited) throw new Error(`the gated build ended before reaching the gate:\n${err}`);
        if (performance.now() - t0 > maxMs) throw new Error(`the gated build did not reach the gate in ${maxMs} ms:\n${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

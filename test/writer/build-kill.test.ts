// Issue 12 item 5: a killed `beton build` leaves no litter. SIGTERM/SIGHUP/SIGINT stop the
// build through its failure path (temporary file removed, exit 128 + n, no stack); SIGKILL
// cannot be handled, so the next build of the same output removes the temporary files of
// processes that are gone — never those of a live one. At no moment is there an output that
// `beton inspect` accepts unless the build completed (the rename is the last step).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { constants, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_IMAGES, STACK_LINE } from '../helpers/cli-inputs.js';
import { CLI, cli } from '../helpers/cli.js';
import { startGatedBuild } from '../helpers/gated-build.js';
import { requires } from '../helpers/requires.js';
import { ffmpegAvailable } from '../../core/sources/video/video-ffmpeg.js';
import { mulberry32 as rng } from '../helpers/mulberry32.js';

const HAVE_FFMPEG = requires(
  'ffmpeg and ffprobe',
  'apt-get install -y ffmpeg (the mid-write signal test builds videos)',
  ffmpegAvailable(),
);

const dir = mkdtempSync(join(tmpdir(), 'beton-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const temps = (folder: string): string[] => readdirSync(folder).filter((f) => f.includes('.tmp-'));

/** The sample images three times over (144 images, ~13 MiB raw): a write long enough to be hit. */
const SOURCE = join(dir, 'source');
for (let copy = 0; copy < 3; copy++) {
  for (const cls of readdirSync(SAMPLE_IMAGES)) {
    mkdirSync(join(SOURCE, cls), { recursive: true });
    for (const f of readdirSync(join(SAMPLE_IMAGES, cls))) copyFileSync(join(SAMPLE_IMAGES, cls, f), join(SOURCE, cls, `${copy}-${f}`));
  }
}
const BUILD = (out: string): string[] => ['build', SOURCE, '-o', out, '--workers', '1', '--page-size', String(2 << 20)];

/** Resolves when a temporary file of the build appears in `folder` (polled), or after `maxMs`. */
async function tempAppears(folder: string, maxMs: number): Promise<boolean> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    if (temps(folder).length > 0) return true;
    await new Promise((r) => setTimeout(r, 3));
  }
  return false;
}

/** The dead pid of a process that just ran (reused by another process within the test: unlikely). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}

describe('a killed build leaves no output and no litter', () => {
  it('kill -9 / SIGTERM / SIGHUP / SIGINT at seeded random moments (10 trials)', async () => {
    const folder = join(dir, 'trials');
    mkdirSync(folder);
    const out = join(folder, 'out.beton');
    // How long a whole build takes here, and its write (temporary file present): the trials kill within them.
    const t0 = performance.now();
    const calibration = spawn(process.execPath, [CLI, ...BUILD(out)], { stdio: 'ignore' });
    const done = new Promise<number | null>((r) => calibration.on('close', r));
    await tempAppears(folder, 60_000);
    const writeFrom = performance.now() - t0;
    expect(await done).toBe(0);
    const fullMs = performance.now() - t0;
    const writeMs = Math.max(50, fullMs - writeFrom);
    const numSamples = (JSON.parse(cli(['inspect', out, '--json']).stdout) as { numSamples: number }).numSamples;
    expect(numSamples).toBe(144);

    const random = rng(12);
    const SIGNALS: NodeJS.Signals[] = [
      'SIGKILL',
      'SIGTERM',
      'SIGKILL',
      'SIGTERM',
      'SIGHUP',
      'SIGKILL',
      'SIGTERM',
      'SIGINT',
      'SIGKILL',
      'SIGTERM',
    ];
    const outcomes: string[] = [];
    for (const [trial, sig] of SIGNALS.entries()) {
      rmSync(out, { force: true });
      const started = performance.now();
      const child = spawn(process.execPath, [CLI, ...BUILD(out)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const closed = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, s) => r([c, s])));
      // Odd trials: any moment of the run (start-up included); even ones: a moment of the write.
      if (trial % 2) await new Promise((r) => setTimeout(r, fullMs * random()));
      else if (await tempAppears(folder, fullMs * 3)) await new Promise((r) => setTimeout(r, 0.8 * writeMs * random()));
      const delay = Math.round(performance.now() - started);
      const hadTemp = temps(folder).length > 0;
      child.kill(sig);
      const [status, signal] = await closed;
      const what = `trial ${trial}: ${sig} after ${delay} ms (temp file ${hadTemp ? 'present' : 'absent'}): exit ${status ?? signal}\n${stderr}`;
      const completed = status === 0;
      // Never an output a reader accepts unless the build completed, and then a whole one.
      if (existsSync(out)) {
        const r = cli(['inspect', out, '--json']);
        expect(r.status, what).toBe(0);
        expect((JSON.parse(r.stdout) as { numSamples: number }).numSamples, what).toBe(144);
        // A handled signal never leaves an output unless the build completed; a signal in the
        // moment after the rename (handlers already removed) kills by Node's default action,
        // and the file it leaves is the whole one (checked above).
        if (sig !== 'SIGKILL') expect(completed || signal === sig, what).toBe(true);
      } else {
        expect(completed, what).toBe(false);
      }
      expect(stderr, what).not.toMatch(STACK_LINE);
      if (sig !== 'SIGKILL') {
        // A handled signal: the build removed its own temporary file and exited 128 + n
        // (or Node's default action, when the signal came before the handlers existed).
        expect(completed || status === 128 + constants.signals[sig] || signal === sig, what).toBe(true);
        if (status === 128 + constants.signals[sig])
          expect(stderr, what).toMatch(/error \[INTERRUPTED\]: the build was (stopped by|interrupted)/);
        expect(temps(folder), what).toEqual([]);
      }
      // The next build of the same output removes what a killed one left.
      const next = cli([...BUILD(out), '--range', '0:2', '--force']);
      expect(next.status, `${what}\nnext build:\n${next.stderr}`).toBe(0);
      expect(temps(folder), what).toEqual([]);
      outcomes.push(
        `${sig} at ${delay} ms: ${completed ? 'completed' : `exit ${status ?? signal}`}, temp ${hadTemp ? 'present' : 'absent'} at the kill`,
      );
    }
    console.log(`kill trials (full build ${Math.round(fullMs)} ms, writing ${Math.round(writeMs)} ms):\n  ${outcomes.join('\n  ')}`);
    // Most of the even trials' kills land inside the write (a temporary file existed), so
    // the litter case is exercised, not only kills before or after it.
    expect(outcomes.filter((o) => o.includes('temp present')).length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  // The random trials above may hit a build after it finished (then "completed" is all they
  // can say). Here the signal lands while the build provably runs: its second decode waits at
  // a gate the test opens only after the signal (test/helpers/gated-build.ts). A CLI that
  // ignored the signal would finish with exit 0 and an output once the gate opens: a failure.
  it.runIf(HAVE_FFMPEG)(
    'SIGINT / SIGTERM / SIGHUP sent mid-write stop the build: 128 + n, [INTERRUPTED], no output, no litter',
    async () => {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        const folder = join(dir, `gated-${sig}`);
        mkdirSync(folder);
        const b = startGatedBuild(dir, join(folder, 'out.beton'), sig);
        try {
          await b.blocked();
          expect(await b.writing(folder), `${sig}: the build is writing when the signal comes`).toBe(true);
          b.child.kill(sig);
          await new Promise((r) => setTimeout(r, 300));
          b.open();
          const { status, signal } = await b.closed;
          const what = `${sig}: exit ${status ?? signal}\n${b.stderr()}`;
          expect(status, what).toBe(128 + constants.signals[sig]);
          expect(b.stderr(), what).toMatch(
            /error \[INTERRUPTED\]: the build was (stopped by SIG(TERM|HUP)|interrupted \(Ctrl-C\)); no output was written/,
          );
          expect(b.stderr(), what).not.toMatch(STACK_LINE);
          expect(readdirSync(folder), what).toEqual([]);
        } finally {
          b.open();
          b.child.kill('SIGKILL');
        }
      }
    },
    120_000,
  );

  it("the next build removes temporary files of dead processes only: a live process's and another machine's stay", () => {
    const folder = join(dir, 'stale');
    mkdirSync(folder);
    const out = join(folder, 'data.beton');
    const tag = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
    const dead = deadPid();
    const names = {
      deadLegacy: `.data.beton.tmp-${dead}-0badf00d`,
      deadTagged: `.data.beton.tmp-${dead}-${tag}12345678`,
      deadSpill: `.data.beton.tmp-${dead}-${tag}12345678.pages`,
      deadReport: `.data.beton.skipped.json.tmp-${dead}-${tag}abcdef01`,
      live: `.data.beton.tmp-${process.pid}-${tag}87654321`,
      otherHost: `.data.beton.tmp-${dead}-${tag === 'ffffffff' ? '00000000' : 'ffffffff'}11111111`,
      otherOutput: `.other.beton.tmp-${dead}-${tag}22222222`,
    };
    for (const n of Object.values(names)) writeFileSync(join(folder, n), 'x'.repeat(1000));
    const r = cli(['build', join(SAMPLE_IMAGES), '-o', out, '--workers', '1', '--range', '0:2']);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(
      ['data.beton', 'data.beton.manifest.json', names.live, names.otherHost, names.otherOutput].sort(),
    );
  });
});

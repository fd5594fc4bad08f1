// Issue 19 item 12: `beton profile` and signals. SIGINT exits 130, SIGTERM 143, SIGHUP 129 (as
// build and merge do); the points measured before the signal are kept (the run is recorded as
// interrupted), and the command an exec run started is terminated with its children.
// The three sweeps run at once (each its own process and database): each waits on its
// timed points, not on the CPU, so together they take the time of one.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsDb } from '../../core/runs/runs-db.js';
import { CLI } from '../helpers/cli.js';
import { writeImageBeton } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-prof-sig-'));
const file = join(dir, 'small.beton');
beforeAll(() => writeImageBeton(file, 48));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `beton profile ARGS`, sends `sig` once stderr matches `ready`, and waits for the exit. */
async function signalled(args: string[], ready: RegExp, sig: NodeJS.Signals): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'profile', ...args], { env: { ...process.env, BETON_DEBUG: '' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  await new Promise<void>((r) => {
    const check = (): void => (ready.test(stderr) || child.exitCode !== null ? r() : void setTimeout(check, 25));
    check();
  });
  child.kill(sig);
  const status = await exited;
  clearTimeout(killer);
  return { status, stderr };
}

function onlyRun(db: string) {
  const runs = RunsDb.open(db);
  try {
    const [s] = runs.listRuns();
    return { summary: s!, run: runs.getRun(s!.id)! };
  } finally {
    runs.close();
  }
}

const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe.concurrent('beton profile and signals during a sweep', () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} during a sweep: exit ${128 + constants.signals[sig]}, the measured points kept, the run interrupted`, async () => {
      const db = join(dir, `${sig}.sqlite`);
      const r = await signalled(
        [file, '--workers', '1,1,1,1', '--batch-sizes', '8', '--decoder', 'simple', '--seconds', '0.5', '--db', db, '--no-gpu'],
        /\[1\/4\]/, // the first point is measured
        sig,
      );
      expect(r.status, r.stderr).toBe(128 + constants.signals[sig]);
      expect(r.stderr).toMatch(new RegExp(`stopped by ${sig}; run \\d+ is recorded as interrupted with \\d+ points?`));
      const { summary, run } = onlyRun(db);
      expect(summary.status).toBe('interrupted');
      expect(run.points.length).toBeGreaterThanOrEqual(1);
      expect(run.points.length).toBeLessThan(4);
      expect(run.failure).toMatchObject({ code: 'INTERRUPTED', signal: sig });
    });
  }
});

describe('beton profile and signals during --exec', () => {
  it('SIGTERM during --exec: exit 143, the command and its children terminated, the run interrupted', async () => {
    const db = join(dir, 'exec.sqlite');
    const pidFile = join(dir, 'child.pid');
    const command = `sleep 60 & echo $! > ${pidFile}; echo '{"images": 8}' >&2; wait`;
    const r = await signalled(['--exec', command, '--db', db, '--no-gpu'], /"images": 8/, 'SIGTERM');
    expect(r.status, r.stderr).toBe(143);
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // SIGTERM to the group reaches the background sleep; give the kernel a moment to reap it.
    for (let i = 0; i < 40 && alive(pid); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive(pid)).toBe(false);
    const { summary, run } = onlyRun(db);
    expect(summary.status).toBe('interrupted');
    expect(run.kind).toBe('exec');
  });
});

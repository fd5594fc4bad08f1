import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ExecError, runExec, type ExecOptions } from '../../core/profile/exec/exec-mode.js';
import { fakeGpuPaths, sleep, until, withPath } from './profile-fake-gpu.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-exec-'));
const paths = fakeGpuPaths();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  paths.cleanup();
});

/** Writes a tiny "training script" and returns the shell command that runs it with this node. */
function script(name: string, body: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return `"${process.execPath}" "${file}"`;
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

const run = (o: ExecOptions) => {
  const stdout = new Collect();
  const stderr = new Collect();
  return runExec({ gpu: false, intervalMs: 100, stdout, stderr, ...o }).then((r) => ({ ...r, out: stdout.text, err: stderr.text }));
};

/** Prints {"step": n, "images": N} every 20 ms at 2000 images/s of wall time for `ms`, then the exact total. */
const steady = (ms: number, line = 'JSON.stringify({ step: n, images })') => `
const t0 = Date.now(); let n = 0; let images = 0;
console.log('epoch 0: starting (not a report)');
const timer = setInterval(() => {
  const el = Date.now() - t0;
  n++; images = Math.floor(el * 2);
  if (el >= ${ms}) { images = ${ms * 2}; clearInterval(timer); }
  console.log(${line});
}, 20);
`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;

function alive(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); // a zombie is dead
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('exec mode', () => {
  it('reads JSON-lines reports, passes output through and reports images/s per window', async () => {
    const r = await run({ command: script('json', steady(1500)) });
    expect(r.exitCode).toBe(0);
    expect(r.cancelled).toBe(false);
    expect(r.imagesTotal).toBe(3000);
    expect(r.seconds).toBeGreaterThan(1.4);
    expect(r.out).toContain('epoch 0: starting (not a report)\n');
    expect(r.out).toContain('{"step":1,');
    expect(r.samples.length).toBeGreaterThanOrEqual(5);
    const rates = r.samples.map((s) => s.imagesPerSec).filter((v): v is number => v != null && v > 0);
    expect(rates.length).toBeGreaterThanOrEqual(3);
    expect(median(rates)).toBeGreaterThan(1400);
    expect(median(rates)).toBeLessThan(2600);
    for (const s of r.samples) {
      expect(s.point).toBeNull();
      expect(s.gpus).toEqual([]);
    }
    // the command's tree, not us: a node process is well over 10 MiB
    expect(Math.max(...r.samples.map((s) => s.rssBytes))).toBeGreaterThan(10 << 20);
  });

  it('accepts {"step", "batch_size"} and {"images_per_sec"} lines, on stderr too', async () => {
    // The two commands run at once: each is its own process with its own reports.
    const [steps, rate] = await Promise.all([
      run({
        command: script(
          'steps',
          steady(800, 'JSON.stringify({ step: images / 2, batch_size: 2 })').replace('console.log(JSON', 'console.error(JSON'),
        ),
      }),
      run({ command: script('rate', steady(800, 'JSON.stringify({ images_per_sec: 512 })')) }),
    ]);
    expect(steps.imagesTotal).toBe(1600);
    expect(steps.err).toContain('"batch_size":2');
    expect(rate.samples.some((s) => s.imagesPerSec === 512)).toBe(true);
    expect(rate.imagesTotal).toBeGreaterThan(200);
  });

  it('reads a user regex: cumulative images or images/s', async () => {
    // The two commands run at once: each is its own process with its own regex.
    const [count, ips] = await Promise.all([
      run({
        command: script('rx-count', steady(800, '`iter ${n} | seen ${images.toLocaleString("en-US")} images`')),
        throughputRegex: 'seen (?<images>[\\d,]+) images',
      }),
      run({
        command: script('rx-ips', steady(600, '`throughput ${(1000 + n).toFixed(1)} img/s`')),
        throughputRegex: /throughput (?<ips>[\d.]+) img\/s/,
      }),
    ]);
    expect(count.imagesTotal).toBe(1600);
    expect(count.samples.some((s) => (s.imagesPerSec ?? 0) > 1000)).toBe(true);
    expect(ips.samples.some((s) => (s.imagesPerSec ?? 0) > 1000)).toBe(true);
  });

  it('returns the exit code of a failing command', async () => {
    const [r, missing] = await Promise.all([
      run({ command: script('fail', 'console.log(JSON.stringify({ images: 64 })); process.exitCode = 3;') }),
      run({ command: 'exit 127' }),
    ]);
    expect(r.exitCode).toBe(3);
    expect(r.imagesTotal).toBe(64);
    expect(missing.exitCode).toBe(127);
  });

  it('rejects a regex without a named group before starting anything', async () => {
    await expect(run({ command: 'echo hi', throughputRegex: '(\\d+)' })).rejects.toMatchObject({ code: 'BAD_REGEX' });
    await expect(run({ command: 'echo hi', throughputRegex: '(\\d+)' })).rejects.toBeInstanceOf(ExecError);
  });

  it('fails with SPAWN_FAILED when the command cannot start', async () => {
    await expect(run({ command: 'echo hi', cwd: join(dir, 'no-such-dir') })).rejects.toMatchObject({ code: 'SPAWN_FAILED' });
  });

  it('does nothing when already aborted', async () => {
    const r = await run({ command: 'echo should-not-run', signal: AbortSignal.abort() });
    expect(r).toMatchObject({ cancelled: true, exitCode: null, samples: [], out: '' });
  });

  it('cancels with the signal: kills the whole process group', async () => {
    const body = `
import { spawn } from 'node:child_process';
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('grandchild ' + g.pid);
setInterval(() => console.log(JSON.stringify({ images_per_sec: 10 })), 50);
`;
    const ac = new AbortController();
    let grandchild = 0;
    const t0 = Date.now();
    const p = run({
      command: script('group', body),
      signal: ac.signal,
      onLine: (l) => void (/^grandchild (\d+)/.exec(l) && (grandchild = Number(/\d+/.exec(l)![0]))),
    });
    await until(() => grandchild > 0);
    expect(alive(grandchild)).toBe(true);
    ac.abort();
    const r = await p;
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(Date.now() - t0).toBeLessThan(15_000);
    await until(() => !alive(grandchild), 3000);
    expect(alive(grandchild)).toBe(false);
  });

  it('SIGKILLs a command that ignores SIGTERM after the grace period', async () => {
    const body = `process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready ' + process.pid); setInterval(() => {}, 1000);`;
    const ac = new AbortController();
    let pid = 0;
    const p = run({
      command: script('stubborn', body),
      signal: ac.signal,
      killGraceMs: 300,
      onLine: (l) => void (l.startsWith('ready ') && (pid = Number(l.slice(6)))),
    });
    await until(() => pid > 0);
    ac.abort();
    const r = await p;
    expect(r.cancelled).toBe(true);
    await until(() => !alive(pid), 5000);
    expect(alive(pid)).toBe(false);
  });

  it('samples GPUs alongside (fake nvidia-smi) and says when there are none', async () => {
    const withGpu = await withPath(paths.withFake, () => run({ command: script('gpu', steady(1200)), gpu: true }));
    expect(withGpu.gpuUnavailable).toBeNull();
    expect(withGpu.samples.some((s) => s.gpus.length === 2)).toBe(true);
    const reasons: string[] = [];
    const noGpu = await withPath(paths.withoutGpu, () =>
      run({ command: script('nogpu', steady(300)), gpu: true, onGpuUnavailable: (x) => reasons.push(x) }),
    );
    expect(noGpu.exitCode).toBe(0);
    expect(noGpu.gpuUnavailable).toBe('no GPU: nvidia-smi not found on PATH');
    expect(reasons).toHaveLength(1);
    await sleep(10);
  });
});

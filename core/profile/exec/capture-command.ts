import { spawn } from 'node:child_process';

/** How a short command ended and what it printed. */
export interface Captured {
  /** The exit code; null when it was killed or never started. */
  status: number | null;
  stdout: string;
  stderr: string;
  /** Why it has no exit code: it could not start, or it ran past the timeout. */
  error: Error | null;
}

export interface CaptureOptions {
  cwd?: string;
  /** SIGTERM to its process group after this long. */
  timeoutMs: number;
  /** Then SIGKILL this long after, for a command that ignores SIGTERM (`timeout -k`); default 2 s. */
  graceMs?: number;
}

/** Output kept per stream: the version line or the last error line is all a caller reads. */
const MAX_CHARS = 64 * 1024;

/**
 * Runs a short command to the end without blocking the event loop: spawnSync here froze every
 * other request of `beton serve` while Python imported torch. It runs in its own process
 * group, so a timeout also ends what it started. Never rejects: a failure is in the result.
 */
export function captureCommand(cmd: string, args: readonly string[], o: CaptureOptions): Promise<Captured> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let error: Error | null = null;
    let settled = false;
    const child = spawn(cmd, args, { cwd: o.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const signalGroup = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    let killTimer: NodeJS.Timeout | null = null;
    const termTimer = setTimeout(() => {
      error = new Error(`no answer in ${Math.round(o.timeoutMs / 1000)} s`);
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), o.graceMs ?? 2000);
    }, o.timeoutMs);
    const finish = (status: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(termTimer);
      if (killTimer) clearTimeout(killTimer);
      resolve({ status: error ? null : status, stdout, stderr, error });
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < MAX_CHARS) stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr = (stderr + c).slice(-MAX_CHARS);
    });
    child.on('error', (e) => {
      error = e;
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

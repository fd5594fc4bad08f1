import { spawn, type ChildProcess } from 'node:child_process';
import {
  ExecError,
  ThroughputMeter,
  compileThroughputRegex,
  droppedValues,
  jsonObjectOf,
  parseRegexLine,
  stepOf,
  throughputOf,
} from './exec-protocol.js';
import { LineSplitter } from './line-splitter.js';
import { PROBE_FD, probeEnv } from './probe-path.js';
import { StepStats } from './step-stats.js';
import { startTelemetry, type Telemetry } from '../sampling/telemetry.js';
import type { ExecMeasures, RunFailure, TelemetrySample } from '../../api/profile-model.js';

export { ExecError } from './exec-protocol.js';

export interface ExecOptions {
  /** Run by the shell (`/bin/sh -c` on Linux), in its own process group. */
  command: string;
  /** Instead of JSON lines: a regex with a named group `images` (cumulative) or `ips` (images/s). */
  throughputRegex?: string | RegExp | null;
  onSample?: (s: TelemetrySample) => void;
  /** Every output line of the command, for a UI log. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  onGpuUnavailable?: (reason: string) => void;
  /** Aborting kills the command's whole process group (SIGTERM, then SIGKILL after killGraceMs). */
  signal?: AbortSignal;
  intervalMs?: number;
  /** Sample GPUs with nvidia-smi (default true). */
  gpu?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the command's output is passed through (default: ours); null swallows it. */
  stdout?: NodeJS.WritableStream | null;
  stderr?: NodeJS.WritableStream | null;
  killGraceMs?: number;
  /** Stop the command (its process group) after this many seconds: a training-command sweep's point (timedOut, not a failure). */
  maxSeconds?: number | null;
  /**
   * Offer the probe (python/beton_probe.py) to the command: its folder on PYTHONPATH,
   * BETON_PROBE=1, and a pipe on fd 3 for its step lines (default true).
   */
  probe?: boolean;
}

export interface ExecResult {
  /** The command's exit code; null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  cancelled: boolean;
  /** Stopped after maxSeconds (absent: it was not). */
  timedOut?: boolean;
  samples: TelemetrySample[];
  /** Images the command reported (0 when it reported none). */
  imagesTotal: number;
  /** Wall time from start to exit. */
  seconds: number;
  gpuUnavailable: string | null;
  /**
   * The command's last lines of stderr (at most STDERR_TAIL_LINES, each cut at
   * STDERR_LINE_MAX characters): what a failed command said, for the run and the app.
   */
  stderrTail: string[];
  /** Throughput and, with the probe's step lines, the wait per step: what the exec verdict is made from. */
  measures: ExecMeasures;
  /** Reported values dropped as non-finite, negative, not numbers or absurd (exec-protocol.ts droppedValues). */
  droppedValues?: number;
}

export const STDERR_TAIL_LINES = 20;
export const STDERR_LINE_MAX = 500;

/**
 * How an exec run ended, for the run record: 'failed' with why when the command exited
 * non-zero or was killed (a command that cannot be found is the shell's 127, not an
 * exception), 'cancelled' when we stopped it, else 'ok'.
 */
export function execOutcome(res: ExecResult): { status: 'ok' | 'cancelled' | 'failed'; failure: RunFailure | null } {
  if (res.cancelled) return { status: 'cancelled', failure: null };
  if (res.exitCode === 0 || res.timedOut === true) return { status: 'ok', failure: null };
  const why = res.exitCode === 127 ? ' (command not found)' : res.exitCode === 126 ? ' (not executable)' : '';
  const message =
    res.exitCode !== null ? `the command exited with code ${res.exitCode}${why}` : `the command was killed by ${res.signal ?? 'a signal'}`;
  return { status: 'failed', failure: { message, exitCode: res.exitCode, signal: res.signal, stderrTail: res.stderrTail } };
}

const isWindows = process.platform === 'win32';

/** Whether any process is left in the command's group (signal 0 only checks). */
function groupAlive(child: ChildProcess): boolean {
  if (isWindows || child.pid == null) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals the whole group (the shell and everything it started); the group may be gone already. */
function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  // No pid: it never started, and kill() on such a child signals a garbage pid (see gpu-sampler).
  if (child.pid == null) return;
  try {
    if (!isWindows) process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    // ESRCH: nothing left to kill
  }
}

/**
 * `beton profile --exec`: runs the user's training command, passes its output through, reads
 * its throughput reports (docs/profiler.md) and samples CPU, its process tree's memory and
 * storage reads, and the GPUs every `intervalMs` (250 ms) while it runs.
 */
export async function runExec(o: ExecOptions): Promise<ExecResult> {
  const regex = o.throughputRegex == null || o.throughputRegex === '' ? null : compileThroughputRegex(o.throughputRegex);
  const meter = new ThroughputMeter();
  const steps = new StepStats();
  if (o.signal?.aborted)
    return {
      exitCode: null,
      signal: null,
      cancelled: true,
      samples: [],
      imagesTotal: 0,
      seconds: 0,
      gpuUnavailable: null,
      stderrTail: [],
      measures: steps.measures(null),
    };

  const t0 = performance.now();
  const since = (): number => performance.now() - t0;
  // Python block-buffers a piped stdout: its reports would arrive in bursts of kilobytes.
  const base = { PYTHONUNBUFFERED: '1', ...(o.env ?? process.env) };
  const probe = (o.probe ?? true) && !isWindows;
  const env = probe ? probeEnv(base) : base;
  const child = spawn(o.command, {
    shell: true,
    detached: !isWindows,
    // fd 3: the probe's step lines, read here and not passed through (one line per step).
    stdio: probe ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
    cwd: o.cwd,
    env,
    windowsHide: true,
  });

  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (e) =>
      reject(new ExecError('SPAWN_FAILED', `could not start "${o.command}"${o.cwd ? ` in ${o.cwd}` : ''}: ${e.message}`)),
    );
  });
  // Later 'error' events (a failed kill on Windows) must not become uncaught exceptions.
  child.on('error', () => undefined);
  const closed = new Promise<{ code: number | null; sig: NodeJS.Signals | null; at: number }>((resolve) => {
    let exited: { code: number | null; sig: NodeJS.Signals | null; at: number } | null = null;
    child.once('exit', (code, sig) => {
      exited = { code, sig, at: since() };
      // A background process the command left behind can hold the pipes open: don't wait for it.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        (child.stdio[PROBE_FD] as NodeJS.ReadableStream & { destroy?: () => void })?.destroy?.();
        resolve(exited!);
      }, 2000).unref();
    });
    child.once('close', (code, sig) => resolve(exited ?? { code, sig, at: since() }));
  });

  // A JSON line: a step report (the probe's) feeds the step statistics; its cumulative images,
  // like any count, the throughput — unless a regex was given for that.
  let dropped = 0;
  const onReport = (line: string, counts: boolean): void => {
    const r = jsonObjectOf(line);
    if (!r) return;
    dropped += droppedValues(r);
    const step = stepOf(r);
    if (step) steps.record(step);
    const e = counts ? throughputOf(r) : null;
    if (e) meter.record(e, since());
  };
  // The last lines of stderr: a command that fails says why there (127: "sh: 1: x: not found").
  const stderrTail: string[] = [];
  const pipe = (from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream | null, stream: 'stdout' | 'stderr'): void => {
    if (!from) return;
    const splitter = new LineSplitter((line) => {
      o.onLine?.(line, stream);
      if (stream === 'stderr' && line.trim() !== '') {
        stderrTail.push(line.length > STDERR_LINE_MAX ? `${line.slice(0, STDERR_LINE_MAX)}…` : line);
        if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
      }
      onReport(line, !regex);
      if (regex) {
        const e = parseRegexLine(line, regex);
        if (e) meter.record(e, since());
      }
    });
    from.setEncoding('utf8');
    from.on('data', (chunk: string) => {
      to?.write(chunk);
      splitter.push(chunk);
    });
    from.on('end', () => splitter.end());
  };
  pipe(child.stdout, o.stdout === undefined ? process.stdout : o.stdout, 'stdout');
  pipe(child.stderr, o.stderr === undefined ? process.stderr : o.stderr, 'stderr');
  const probeStream = probe ? (child.stdio[PROBE_FD] as NodeJS.ReadableStream | null | undefined) : null;
  if (probeStream) {
    const splitter = new LineSplitter((line) => onReport(line, !regex));
    probeStream.setEncoding('utf8');
    probeStream.on('data', (chunk: string) => splitter.push(chunk));
    probeStream.on('end', () => splitter.end());
    probeStream.on('error', () => undefined);
  }

  try {
    await spawned;
  } catch (e) {
    await closed.catch(() => undefined);
    throw e;
  }

  let cancelled = false;
  let killTimer: NodeJS.Timeout | null = null;
  const onAbort = (): void => {
    cancelled = true;
    killGroup(child, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), o.killGraceMs ?? 5000);
    killTimer.unref();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) onAbort(); // aborted while the shell was starting
  let timedOut = false;
  const limit =
    o.maxSeconds != null && o.maxSeconds > 0
      ? setTimeout(() => {
          timedOut = true;
          killGroup(child, 'SIGTERM');
          killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), o.killGraceMs ?? 5000);
          killTimer.unref();
        }, o.maxSeconds * 1000)
      : null;

  let telemetry: Telemetry | null = null;
  try {
    telemetry = await startTelemetry({
      intervalMs: o.intervalMs ?? 250,
      pid: child.pid,
      gpu: o.gpu ?? true,
      onSample: o.onSample,
      onGpuUnavailable: o.onGpuUnavailable,
      throughput: () => meter.window(since()),
      waitPerStep: () => steps.windowWaitPerStep(),
    });
    const end = await closed;
    if (limit) clearTimeout(limit);
    return {
      exitCode: end.code,
      signal: end.sig,
      cancelled,
      ...(timedOut && !cancelled ? { timedOut: true } : {}),
      samples: await telemetry.stop(),
      imagesTotal: meter.imagesTotal,
      seconds: end.at / 1000,
      gpuUnavailable: telemetry.gpuUnavailable,
      stderrTail: [...stderrTail],
      measures: steps.measures(meter.steadyImagesPerSec),
      droppedValues: dropped,
    };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    // The SIGKILL stays armed (unref'd) only while the group still has members — the shell may
    // be gone while something it started ignores SIGTERM. An empty group's id is free for
    // the kernel to reuse, so a late kill could hit a stranger: disarm it.
    if (killTimer && !groupAlive(child)) clearTimeout(killTimer);
    await telemetry?.stop();
  }
}

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetonError } from '../../format/errors.js';
import { captureCommand } from '../exec/capture-command.js';
import { LineSplitter } from '../exec/line-splitter.js';
import { PYTHON_DRIVER } from './python-driver.js';
import type { EngineName } from '../../api/profile-model.js';

/** The Python engines: what each must import, and how a user gets it. */
const NEEDS: Record<Exclude<EngineName, 'beton'>, { modules: string; install: string }> = {
  ffcv: { modules: 'ffcv, ffcv.loader, torch', install: 'pip install ffcv' },
  torch: { modules: 'torch, torchvision', install: 'pip install torch torchvision' },
};

export interface EngineAvailability {
  engine: EngineName;
  available: boolean;
  /** The interpreter that was tried (null when none was found), and its version. */
  python: string | null;
  version: string | null;
  /** One line: why it is missing and how to get it (null when available). */
  reason: string | null;
}

/** The interpreter the Python engines run: the one given, else $BETON_PYTHON, else `python3` on PATH. */
export function pythonFor(given?: string | null): string {
  return given || process.env.BETON_PYTHON || 'python3';
}

/** Where `cmd` resolves on PATH (for messages), or null. */
async function which(cmd: string): Promise<string | null> {
  if (cmd.includes('/')) return cmd;
  const r = await captureCommand('/bin/sh', ['-c', 'command -v "$0"', cmd], { timeoutMs: 5000 });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/**
 * One answer per interpreter and engine, for the process's life. The promise is kept, not
 * its result: requests that ask while Python is still importing wait for the same child.
 */
const cache = new Map<string, Promise<EngineAvailability>>();

export interface AvailabilityOptions {
  /** How long the import may take (default 120 s: torch on a cold disk is slow). */
  timeoutMs?: number;
  /** Then SIGKILL this long after SIGTERM (default 2 s). */
  graceMs?: number;
}

/**
 * Whether an engine can run here: beton always; ffcv and torch when the Python interpreter
 * imports their modules (checked once per interpreter and engine, bounded by a timeout).
 * Asynchronous: `beton serve` answers other requests while Python starts.
 */
export function engineAvailability(engine: EngineName, python?: string | null, o: AvailabilityOptions = {}): Promise<EngineAvailability> {
  if (engine === 'beton') return Promise.resolve({ engine, available: true, python: null, version: null, reason: null });
  const cmd = pythonFor(python);
  const key = `${engine}\0${cmd}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = probe(engine, cmd, o);
    cache.set(key, hit);
  }
  return hit;
}

/** Tries the engine's imports in `cmd` (never rejects: a failure is the reason). */
async function probe(engine: Exclude<EngineName, 'beton'>, cmd: string, o: AvailabilityOptions): Promise<EngineAvailability> {
  const need = NEEDS[engine];
  const path = await which(cmd);
  if (!path) {
    return {
      engine,
      available: false,
      python: null,
      version: null,
      reason: `the ${engine} engine needs Python with ${need.modules}: no "${cmd}" on PATH; install Python 3 and \`${need.install}\`, or pass --python PATH`,
    };
  }
  const r = await captureCommand(cmd, ['-c', `import sys, ${need.modules}; print(sys.version.split()[0])`], {
    cwd: '/',
    timeoutMs: o.timeoutMs ?? 120_000,
    ...(o.graceMs !== undefined ? { graceMs: o.graceMs } : {}),
  });
  const version = r.status === 0 ? r.stdout.trim() : null;
  const why = r.error ? r.error.message : r.stderr.trim().split('\n').pop()?.slice(0, 200);
  return version
    ? { engine, available: true, python: path, version, reason: null }
    : {
        engine,
        available: false,
        python: path,
        version: null,
        reason: `the ${engine} engine needs ${need.modules} in ${path} (${why || 'import failed'}): \`${path} -m ${need.install}\`, or pass --python PATH`,
      };
}

/** One line of the driver's output (see python-driver.ts). */
export type DriverLine =
  | { kind: 'ready'; versions: Record<string, string> }
  | { kind: 'start'; index: number }
  | { kind: 'progress'; images: number; waitMs?: number }
  | { kind: 'point'; index: number; images: number; seconds: number; batches: number; waits: number[]; slices: number[] }
  | { kind: 'ablation'; index: number; stage: string; imagesPerSec: number }
  | { kind: 'ablating'; index: number; stage: string; k: number; of: number }
  | { kind: 'error'; message: string };

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const nums = (x: unknown): number[] | null => (Array.isArray(x) && x.every(isNum) ? (x as number[]) : null);

/** A driver line, or null for anything else (Python libraries print too). */
export function parseDriverLine(line: string): DriverLine | null {
  const t = line.trim();
  if (!t.startsWith('{')) return null;
  let o: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(t);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    o = v as Record<string, unknown>;
  } catch {
    return null;
  }
  if (o.ready && typeof o.ready === 'object') return { kind: 'ready', versions: o.ready as Record<string, string> };
  if (isNum(o.start)) return { kind: 'start', index: o.start };
  if (typeof o.error === 'string') return { kind: 'error', message: o.error };
  if (isNum(o.ablation) && typeof o.stage === 'string' && isNum(o.imagesPerSec))
    return { kind: 'ablation', index: o.ablation, stage: o.stage, imagesPerSec: o.imagesPerSec };
  if (isNum(o.ablating) && typeof o.stage === 'string' && isNum(o.k) && isNum(o.of))
    return { kind: 'ablating', index: o.ablating, stage: o.stage, k: o.k, of: o.of };
  if (isNum(o.point) && isNum(o.images) && isNum(o.seconds) && isNum(o.batches)) {
    return {
      kind: 'point',
      index: o.point,
      images: o.images,
      seconds: o.seconds,
      batches: o.batches,
      waits: nums(o.waits) ?? [],
      slices: nums(o.slices) ?? [],
    };
  }
  if (isNum(o.n)) return { kind: 'progress', images: o.n, ...(isNum(o.w) ? { waitMs: o.w } : {}) };
  return null;
}

export interface PythonJob {
  engine: Exclude<EngineName, 'beton'>;
  warmupBatches: number;
  seconds: number;
  slices: number;
  stageSeconds: number;
  points: Array<{
    index: number;
    code?: string;
    ablations?: Array<{ stage: string; code: string }>;
    torch?: Record<string, unknown>;
  }>;
}

export interface PythonEngineOptions {
  python?: string | null;
  job: PythonJob;
  onLine: (l: DriverLine) => void;
  signal?: AbortSignal;
  /** A file the engine skipped (the torch engine's unreadable images), once per file: "skipped unreadable PATH: why". */
  onSkipped?: (message: string) => void;
  /** Kill the child when no driver line came for this long (default 180 s: imports and numba compiles take a while). */
  silenceMs?: number;
}

/**
 * The environment of a Python engine: one thread per worker, as our loader (torch's and
 * OpenMP's own pools would add threads our loader does not have); CPU affinity is inherited.
 */
export function engineEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    OPENBLAS_NUM_THREADS: '1',
  };
}

/**
 * Runs the driver for one engine's points and passes its lines on as they come. Rejects with
 * ENGINE_FAILED (the driver's error and stderr tail) when it fails, goes silent past
 * `silenceMs`, or exits without measuring every point; aborting kills it (its process group)
 * and resolves.
 */
export async function runPythonEngine(o: PythonEngineOptions): Promise<void> {
  const python = pythonFor(o.python);
  const dir = mkdtempSync(join(tmpdir(), 'beton-engine-'));
  const script = join(dir, 'beton_engine_driver.py');
  writeFileSync(script, PYTHON_DRIVER);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(python, [script], { cwd: dir, env: engineEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      let error: string | null = null;
      let measured = 0;
      const stderr: string[] = [];
      let timer: NodeJS.Timeout | null = null;
      let settled = false;
      const kill = (): void => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const arm = (): void => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          error = `no output for ${Math.round((o.silenceMs ?? 180_000) / 1000)} s`;
          kill();
        }, o.silenceMs ?? 180_000);
      };
      const onAbort = (): void => kill();
      o.signal?.addEventListener('abort', onAbort, { once: true });
      arm();
      const lines = new LineSplitter((line) => {
        const l = parseDriverLine(line);
        if (!l) return;
        arm();
        if (l.kind === 'error') {
          error = l.message;
          // The driver exits at once after its error; should a child of it hold our pipes, don't wait for silence.
          setTimeout(kill, 5000).unref();
        }
        if (l.kind === 'point') measured++;
        try {
          o.onLine(l);
        } catch (e) {
          error = (e as Error).message;
          kill();
        }
      });
      const skipped = new Set<string>();
      const errLines = new LineSplitter((line) => {
        // The torch engine's skipped files (the driver's Skipping dataset), reported once each, not as the engine's error.
        const skip = /^beton: (skipped unreadable .*)$/.exec(line);
        if (skip) {
          if (!skipped.has(skip[1]!)) {
            skipped.add(skip[1]!);
            o.onSkipped?.(skip[1]!);
          }
          return;
        }
        if (line.trim()) stderr.push(line.slice(0, 300));
        if (stderr.length > 12) stderr.shift();
      });
      child.stdout.setEncoding('utf8').on('data', (c: string) => lines.push(c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => errLines.push(c));
      child.stdin.on('error', () => undefined); // a child that died early: its exit says why
      child.stdin.end(JSON.stringify(o.job));
      const finish = (err: Error | null): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      child.on('error', (e) =>
        finish(
          new BetonError('ENGINE_FAILED', `the ${o.job.engine} engine could not start ${python}: ${e.message}`, {
            hint: 'Pass --python PATH (an interpreter with the engine installed).',
          }),
        ),
      );
      child.on('close', (code) => {
        lines.end();
        if (o.signal?.aborted) return finish(null);
        if (code === 0 && measured === o.job.points.length && error === null) return finish(null);
        const tail = stderr.slice(-6).join('\n  ');
        finish(
          new BetonError(
            'ENGINE_FAILED',
            `the ${o.job.engine} engine (${python}) failed after ${measured} of ${o.job.points.length} points: ${error ?? `exit code ${code}`}${tail ? `\n  ${tail}` : ''}`,
            { hint: `Check that ${python} runs the engine (beton profile --engine ${o.job.engine} --python PATH picks another).` },
          ),
        );
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

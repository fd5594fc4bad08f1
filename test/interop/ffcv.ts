// The interop suite's link to the real FFCV: whichever FFCV `/usr/bin/python3` can import
// (CI installs the reference FFCV with .ci/run; users `pip install ffcv`).
// Without FFCV the suite skips, loudly; under CI=true a missing FFCV fails it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** Debian's interpreter sees Debian's torch/numba/OpenCV; a pyenv/venv python3 on PATH may not. */
export const PYTHON = process.env.BETON_FFCV_PYTHON ?? '/usr/bin/python3';
export const PY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), 'py');

const INSTALL_HINT =
  'install FFCV for the interop suite: `pip install ffcv` (CI installs the reference FFCV through .ci/run); ' +
  'BETON_FFCV_PYTHON picks the interpreter';

let cached: { ok: true; version: string } | { ok: false; reason: string } | undefined;

/** Whether FFCV imports, checked once per test file (from `/`, away from any source tree). */
export function ffcvStatus(): { ok: true; version: string } | { ok: false; reason: string } {
  if (cached) return cached;
  const r = spawnSync(PYTHON, ['-c', 'import ffcv, ffcv.loader, ffcv.writer; print(ffcv.__version__)'], {
    cwd: '/',
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) cached = { ok: false, reason: `${PYTHON}: ${r.error.message}` };
  else if (r.status !== 0) cached = { ok: false, reason: (r.stderr.trim().split('\n').pop() ?? 'import failed').slice(0, 300) };
  else cached = { ok: true, version: r.stdout.trim() };
  return cached;
}

/**
 * A describe block that needs real FFCV. Without it: skipped with a warning naming the
 * install command, or — under CI=true — one failing test, so CI never passes by skipping.
 */
export function describeFfcv(name: string, body: () => void): void {
  const s = ffcvStatus();
  if (s.ok) {
    describe(name, body);
    return;
  }
  const msg = `FFCV is not importable by ${PYTHON} (${s.reason}); ${INSTALL_HINT}`;
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs real FFCV (CI=true: a missing FFCV is a failure, not a skip)', () => {
        throw new Error(msg);
      });
    });
    return;
  }
  process.stderr.write(`\n*** interop suite SKIPPED: ${name}\n*** ${msg}\n\n`);
  describe.skip(name, body);
}

export interface PythonRun<T> {
  result: T;
  stderr: string;
  ms: number;
}

/**
 * Runs test/interop/py/SCRIPT with FFCV: `SCRIPT JOB.json OUT.json`, the job being `input`.
 * The script writes its result as JSON to OUT.json. Throws with Python's stderr tail on failure.
 * Batch many cases into one call: every new FFCV pipeline costs a numba compile.
 */
export function runFfcv<T>(script: string, input: unknown, timeoutMs = 600_000): PythonRun<T> {
  const dir = mkdtempSync(join(tmpdir(), 'beton-ffcv-'));
  try {
    const job = join(dir, 'job.json');
    const out = join(dir, 'out.json');
    writeFileSync(job, JSON.stringify(input));
    const t0 = Date.now();
    const r = spawnSync(PYTHON, [join(PY_DIR, script), job, out], {
      cwd: dir,
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: PY_DIR },
    });
    const ms = Date.now() - t0;
    if (r.error) throw new Error(`${script}: ${r.error.message}\n${(r.stderr ?? '').slice(-4000)}`);
    if (r.status !== 0) throw new Error(`${script} exited ${r.status}:\n${r.stderr.slice(-6000)}`);
    return { result: JSON.parse(readFileSync(out, 'utf8')) as T, stderr: r.stderr, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

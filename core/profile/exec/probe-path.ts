import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The probe's module name: `python/beton_probe.py` in the package (shipped in package.json `files`). */
export const PROBE_FILE = 'beton_probe.py';

/**
 * The folder holding beton_probe.py (`<package>/python`), found above this module — it runs
 * from core/profile/exec in a checkout and from dist/core/profile/exec once built; null when the
 * package ships without it (then exec runs simply get no probe on PYTHONPATH).
 */
export function probeDir(): string | null {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'python');
    if (existsSync(join(candidate, PROBE_FILE))) return candidate;
  }
  return null;
}

/** The file descriptor the probe writes its step lines to (a pipe runExec reads; not the terminal). */
export const PROBE_FD = 3;

/**
 * What a command needs to report through the probe: BETON_PROBE=1 (the probe is silent
 * without it), the pipe's descriptor, and the probe's folder first on PYTHONPATH.
 */
export function probeEnv(env: NodeJS.ProcessEnv, dir: string | null = probeDir()): NodeJS.ProcessEnv {
  const sep = process.platform === 'win32' ? ';' : ':';
  const path = dir ? [dir, ...(env.PYTHONPATH ? [env.PYTHONPATH] : [])].join(sep) : env.PYTHONPATH;
  return { ...env, BETON_PROBE: '1', BETON_PROBE_FD: String(PROBE_FD), ...(path ? { PYTHONPATH: path } : {}) };
}

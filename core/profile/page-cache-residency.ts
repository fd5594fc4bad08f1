import { execFile } from 'node:child_process';

/** Parses `fincore --bytes --noheadings --raw --output RES,SIZE` output into a fraction 0..1. */
export function parseFincore(stdout: string): number | null {
  const line = stdout.split('\n').find((l) => l.trim() !== '');
  if (line == null) return null;
  const [res, size] = line.trim().split(/\s+/).map(Number);
  if (res == null || size == null || !Number.isFinite(res) || !Number.isFinite(size) || res < 0 || size < 0) return null;
  if (size === 0) return 1; // an empty file has nothing left to fetch
  // RES counts whole pages, so a file's last partial page makes it exceed SIZE.
  return Math.min(1, res / size);
}

/**
 * Fraction of `path`'s pages resident in the OS page cache, or null when it cannot be told.
 *
 * The honest way is mincore(2) over a mapping of the file, which needs native code; until the
 * addon has a slot for it we ask util-linux's `fincore`, which does exactly that. One process
 * spawn (a few ms), so call it once per measured point, not per telemetry sample. Missing
 * `fincore` (macOS, Windows, minimal images), a missing file or any failure gives null.
 */
export function pageCacheResidency(path: string, opts: { timeoutMs?: number } = {}): Promise<number | null> {
  return new Promise((resolve) => {
    try {
      execFile('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'RES,SIZE', path], { timeout: opts.timeoutMs ?? 5000, windowsHide: true }, (err, stdout) => {
        resolve(err ? null : parseFincore(String(stdout)));
      });
    } catch {
      resolve(null); // spawn can throw synchronously on odd arguments (e.g. a NUL in path)
    }
  });
}

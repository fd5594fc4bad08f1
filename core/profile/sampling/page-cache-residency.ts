import { execFile } from 'node:child_process';
import { isNativeAvailable } from '../../native/beton-addon.js';
import { pageCacheResidentFraction } from '../../native/mmap.js';

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
 * mincore(2) over a fresh mapping of the file, in the addon (no process spawn, well under a
 * millisecond for a few GB). Where the addon is missing, util-linux's `fincore` does the
 * same in a child process. A missing file, neither being available (Windows) or any
 * failure gives null.
 */
export function pageCacheResidency(path: string, opts: { timeoutMs?: number; native?: boolean } = {}): Promise<number | null> {
  if ((opts.native ?? true) && isNativeAvailable()) {
    try {
      return Promise.resolve(pageCacheResidentFraction(path));
    } catch {
      return Promise.resolve(null);
    }
  }
  return new Promise((resolve) => {
    try {
      execFile(
        'fincore',
        ['--bytes', '--noheadings', '--raw', '--output', 'RES,SIZE', path],
        { timeout: opts.timeoutMs ?? 5000, windowsHide: true },
        (err, stdout) => {
          resolve(err ? null : parseFincore(String(stdout)));
        },
      );
    } catch {
      resolve(null); // spawn can throw synchronously on odd arguments (e.g. a NUL in path)
    }
  });
}

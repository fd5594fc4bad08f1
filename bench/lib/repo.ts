import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up from this file: the benchmarks run both from
 * bench/ (tsx) and from dist/bench/ (compiled), so a fixed number of '..' would be wrong
 * in one of them, and process.cwd() is wrong when run from another directory.
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
      if (typeof parsed === 'object' && parsed !== null && (parsed as { name?: unknown }).name === 'beton-studio') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the beton-studio package root above the benchmark sources');
    dir = parent;
  }
}

/** Scratch space for generated data and outputs; git-ignored (.bench/ in .gitignore). */
export function benchScratchDir(): string {
  return join(repoRoot(), '.bench');
}

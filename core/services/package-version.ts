import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * beton-studio's version from its package.json, found above this module (core/services in
 * the sources, dist/core/services when built): what the app shows as the host's version
 * when the host does not say (beton serve), instead of a made-up 0.0.0.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === 'beton-studio' && typeof pkg.version === 'string') return (cached = pkg.version);
      } catch {
        // Not ours or unreadable: keep looking upwards.
      }
    }
    dir = dirname(dir);
  }
  return (cached = 'unknown');
}

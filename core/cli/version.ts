import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nativeDescription } from '../native/beton-addon.js';

/** This package's version, from its package.json (core/cli/ in a checkout, dist/core/cli/ installed). */
export function packageVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    const file = fileURLToPath(new URL(rel, import.meta.url));
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'beton-studio' && typeof pkg.version === 'string') return pkg.version;
  }
  return 'unknown';
}

/** `beton --version`: the version, Node's, and which native addon (and JPEG library) is in use. */
export function versionText(): string {
  let addon: string;
  try {
    addon = nativeDescription();
  } catch (e) {
    addon = `native addon not loadable: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  }
  return `beton-studio ${packageVersion()} (Node ${process.versions.node}; ${addon})`;
}

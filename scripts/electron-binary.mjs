#!/usr/bin/env node
// Electron's binary (~100 MB from GitHub) is only for the desktop app: package.json's
// `allowScripts` denies electron's own postinstall, so `npm install` never fails or waits on
// that download. This script fetches it instead, without ever failing the caller:
//   node scripts/electron-binary.mjs --try    (prepare, in a checkout) one attempt; one line if it fails
//   node scripts/electron-binary.mjs --fetch  (npm run get-electron) the same, exit 1 on failure
//   node scripts/electron-binary.mjs --check  (before npm start / npm run dev) exit 1 with one line if missing
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = join(root, 'node_modules', 'electron');
const mode = process.argv[2] ?? '--check';
const HOW =
  "the desktop app needs Electron's binary from GitHub: run `npm run get-electron` where GitHub is reachable, " +
  'then `npm start` (the CLI, the library and `npm run beton -- serve FOLDER` work without it)';

export function electronInstalled() {
  try {
    const rel = readFileSync(join(electronDir, 'path.txt'), 'utf8');
    return existsSync(join(electronDir, 'dist', rel));
  } catch {
    return false;
  }
}

if (!existsSync(electronDir)) {
  // A library install (electron is a devDependency): nothing to do.
  if (mode === '--check') {
    process.stderr.write(`beton-studio: ${HOW}\n`);
    process.exit(1);
  }
  process.exit(0);
}
if (electronInstalled()) process.exit(0);
if (mode === '--check') {
  process.stderr.write(`beton-studio: ${HOW}\n`);
  process.exit(1);
}
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD && mode === '--try') process.exit(0);
const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
  cwd: electronDir,
  encoding: 'utf8',
  timeout: 300_000,
  env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' },
});
if (r.status === 0 && electronInstalled()) process.exit(0);
const why = `${r.stderr ?? ''}`.split('\n').find((l) => /Error|ENOTFOUND|ECONN|EAI_AGAIN/.test(l)) ?? 'download failed';
process.stdout.write(`beton-studio: skipped Electron's binary (${why.trim().slice(0, 120)}); ${HOW}\n`);
process.exit(mode === '--fetch' ? 1 : 0);

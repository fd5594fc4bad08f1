#!/usr/bin/env node
// `npm run test:fast`'s first step: `npm run build:ts` (tsc -p tsconfig.build.json), skipped
// when dist/ is already built from the sources as they are now. The CLI tests spawn
// bin/beton.js, which runs dist/: a stale dist would test old code, so "fresh" is strict: a
// stamp written by this script when its build started is newer than every input's mtime —
// each .ts under the folders tsconfig.build.json compiles, the folders themselves (a file
// added, removed or renamed changes its folder's mtime), and the tsconfig files. Anything
// else (no stamp, dist removed, a checkout or stash that touched a source) builds. A build
// run by hand (`npm run build:ts`) writes no stamp, so the next run here builds once more.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'dist', '.build-ts-stamp');
/** tsconfig.build.json's `include` folders, and the files that configure the compile. */
const SOURCE_DIRS = ['core', 'bench', 'scripts'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest mtime (ms) among the .ts files and folders under `dir`. */
function newestUnder(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function newestInput() {
  let newest = 0;
  for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) newest = Math.max(newest, newestUnder(join(root, d)));
  for (const f of CONFIGS) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest;
}

const stampMs = existsSync(STAMP) ? statSync(STAMP).mtimeMs : -1;
if (stampMs >= 0 && newestInput() < stampMs) {
  process.stdout.write('build:ts skipped: dist/ is newer than every source (scripts/build-ts-if-stale.mjs)\n');
} else {
  // The stamp takes the time the build started: a source saved during the build is newer.
  const started = new Date();
  execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: 'inherit' });
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, 'written by scripts/build-ts-if-stale.mjs after a build:ts that started at this mtime\n');
  utimesSync(STAMP, started, started);
}

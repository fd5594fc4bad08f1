#!/usr/bin/env node
// `npm run test:fast`'s and `npm test`'s step before vitest: `npm run build:ts` (tsc -p
// tsconfig.build.json), skipped when dist/ is already built from the sources as they are now
// (scripts/dist-fresh.mjs says how that is decided). The CLI tests spawn bin/beton.js, which
// runs dist/, and the tests' worker threads start from dist/ when it is fresh: a stale dist
// would test old code, so anything else (no stamp, dist removed, a checkout or stash that
// touched a source) builds. A build run by hand (`npm run build:ts`) writes no stamp, so the
// next run here builds once more.
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsFresh, stampPath } from './dist-fresh.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = stampPath(root);
if (distIsFresh(root)) {
  process.stdout.write('build:ts skipped: dist/ is newer than every source (scripts/build-ts-if-stale.mjs)\n');
} else {
  // The stamp takes the time the build started: a source saved during the build is newer.
  const started = new Date();
  execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: 'inherit' });
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, 'written by scripts/build-ts-if-stale.mjs after a build:ts that started at this mtime\n');
  utimesSync(STAMP, started, started);
}

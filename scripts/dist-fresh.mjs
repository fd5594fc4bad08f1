// Whether dist/ is built from the sources as they are now: scripts/build-ts-if-stale.mjs's
// stamp (written when its build started) is newer than every input's mtime — each .ts under
// the folders tsconfig.build.json compiles, the folders themselves (a file added, removed or
// renamed changes its folder's mtime), and the tsconfig files. Read by that script (build
// when stale) and by vitest.config.ts (tests start worker threads from dist/ only when fresh).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** tsconfig.build.json's `include` folders, and the files that configure the compile. */
const SOURCE_DIRS = ['core', 'bench', 'scripts'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The stamp a build by scripts/build-ts-if-stale.mjs leaves in dist/. */
export const stampPath = (root) => join(root, 'dist', '.build-ts-stamp');

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

function newestInput(root) {
  let newest = 0;
  for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) newest = Math.max(newest, newestUnder(join(root, d)));
  for (const f of CONFIGS) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest;
}

/** True when the stamp exists and is newer than every source. */
export function distIsFresh(root) {
  const stamp = stampPath(root);
  return existsSync(stamp) && newestInput(root) < statSync(stamp).mtimeMs;
}

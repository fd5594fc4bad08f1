#!/usr/bin/env node
// The `beton` command. Runs the compiled CLI (built by `npm install` / `npm run build`).
import { existsSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/core/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('beton: the library is not built yet; run `npm run build` in the beton-studio checkout\n');
  process.exit(1);
}
// A reader that stops early (`beton dump F | head -n 1`) closes the pipe: that ends the
// command quietly with 0, as for any Unix filter, not with an EPIPE error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
// `npm run beton -- inspect train.beton` runs this script from the checkout's root, wherever
// it was typed; npm keeps the caller's folder in INIT_CWD. The paths on the command line are
// the caller's, so go back there — only for this package's own `beton` script, and once
// (INIT_CWD is dropped, so a child of this command does not move again).
const ownPackage = fileURLToPath(new URL('../package.json', import.meta.url));
const real = (p) => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};
if (
  process.env.INIT_CWD &&
  process.env.npm_lifecycle_event === 'beton' &&
  process.env.npm_package_json &&
  real(process.env.npm_package_json) === real(ownPackage) &&
  real(process.cwd()) === real(dirname(ownPackage))
) {
  const caller = process.env.INIT_CWD;
  delete process.env.INIT_CWD;
  try {
    process.chdir(caller);
  } catch (e) {
    process.stderr.write(`beton: cannot run in the folder npm was called from (${caller}): ${e.message}\n`);
    process.exit(1);
  }
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));

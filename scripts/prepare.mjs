#!/usr/bin/env node
// `npm install`'s build step (the native addon is built by the `install` script before it).
// A library user (this package installed into another project) needs the compiled core; the
// desktop app's renderer and Electron main process are built only in a checkout of this repo,
// where `npm install` runs from the package root itself (INIT_CWD: where npm was started).
import { execSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const same = (a, b) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
};
const inCheckout = !process.env.INIT_CWD || same(process.env.INIT_CWD, root);
const run = (script) => execSync(`npm run --silent ${script}`, { cwd: root, stdio: 'inherit' });

run('build:ts');
if (inCheckout && process.env.BETON_SKIP_APP_BUILD !== '1') {
  run('build:electron');
  run('build:renderer');
  // Electron's binary for the desktop app: one try, never fatal (scripts/electron-binary.mjs).
  execSync(`"${process.execPath}" scripts/electron-binary.mjs --try`, { cwd: root, stdio: 'inherit' });
} else {
  process.stdout.write('beton-studio: library build only (the app is built in a checkout: npm run build)\n');
}

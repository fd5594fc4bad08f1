#!/usr/bin/env node
// Builds better-sqlite3 for the installed Electron, apart from the Node build the CLI uses:
// native-bindings/electron/<electron version>/better_sqlite3.node, which the app loads when
// started from a checkout (core/runs/sqlite-binding.ts). `npm start` and `npm run dev` run
// this first; it does nothing when that file exists (--force rebuilds).
//
// Why not rebuild node_modules/better-sqlite3 in place (what @electron/rebuild does): its
// .node file is not Node-API, so one build serves one runtime, and the CLI, `beton serve`
// and the tests run under Node from the same checkout. The package is copied to
// .cache/electron-sqlite/ and compiled there by node-gyp against Electron's headers
// (downloaded once from electronjs.org into node-gyp's cache).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const force = process.argv.includes('--force');

function fail(message, hint) {
  console.error(`rebuild:electron: ${message}`);
  if (hint) console.error(hint);
  process.exit(1);
}

let electronVersion;
try {
  electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
} catch {
  fail('Electron is not installed (node_modules/electron)', 'Run `npm install` first.');
}
const bindingsDir = process.env.BETON_NATIVE_BINDINGS ? resolve(process.env.BETON_NATIVE_BINDINGS) : join(root, 'native-bindings');
const target = join(bindingsDir, 'electron', electronVersion, 'better_sqlite3.node');
if (existsSync(target) && !force) {
  console.log(`rebuild:electron: better-sqlite3 for Electron ${electronVersion} is there (${target}); --force rebuilds it`);
  process.exit(0);
}

const pkgDir = dirname(require.resolve('better-sqlite3/package.json'));
const work = join(root, '.cache', 'electron-sqlite', electronVersion, 'better-sqlite3');
rmSync(work, { recursive: true, force: true });
mkdirSync(dirname(work), { recursive: true });
// The sources only: the Node build in build/ must not be picked up or overwritten.
cpSync(pkgDir, work, { recursive: true, filter: (src) => !src.startsWith(join(pkgDir, 'build') + sep) && src !== join(pkgDir, 'build') });

console.log(`rebuild:electron: compiling better-sqlite3 for Electron ${electronVersion} (headers from electronjs.org)…`);
const env = { ...process.env };
// An npm `nodedir` setting would point node-gyp at Node's headers instead of Electron's.
for (const k of Object.keys(env)) if (/^npm_config_nodedir$/i.test(k)) delete env[k];
const gyp = require.resolve('node-gyp/bin/node-gyp.js');
const r = spawnSync(
  process.execPath,
  [gyp, 'rebuild', '--release', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers', '--directory', work],
  { stdio: 'inherit', env },
);
const built = join(work, 'build', 'Release', 'better_sqlite3.node');
if (r.status !== 0 || !existsSync(built)) {
  fail(
    `node-gyp could not build better-sqlite3 for Electron ${electronVersion} (exit ${r.status ?? r.signal})`,
    "It needs a C++ toolchain (as `npm install` did) and, the first time, Electron's headers from https://electronjs.org/headers. " +
      'Offline, copy a better_sqlite3.node built for this Electron to ' +
      target +
      '. The CLI and `beton serve` do not need it.',
  );
}
mkdirSync(dirname(target), { recursive: true });
copyFileSync(built, target);
console.log(`rebuild:electron: wrote ${target}`);

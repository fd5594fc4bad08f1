#!/usr/bin/env node
// The package's `install` script (the node-gyp-build pattern, for our two addons in native/):
// use the prebuilt addons shipped in native/prebuilds/<platform>-<arch>/ when they load here,
// and only otherwise compile with node-gyp (needs python3, make, a C++ compiler and the
// libjpeg-turbo headers). Silent on success; node-gyp's output is shown only when it fails.
// The choice between the prebuilds at run time is core/native/addon-location.ts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const target = `${process.platform}-${process.arch}`;

const loads = (path) => {
  if (!existsSync(path)) return false;
  try {
    require(path);
    return true;
  } catch {
    return false;
  }
};

const release = join(root, 'native', 'build', 'Release');
const prebuilt = join(root, 'native', 'prebuilds', target);
const usable = (dir, natives) => natives.some((n) => loads(join(dir, n))) && loads(join(dir, 'beton_turbo.node'));

// A previous build of this checkout, or a prebuild that loads: nothing to compile.
if (process.env.BETON_BUILD_FROM_SOURCE !== '1') {
  if (usable(release, ['beton_native.node'])) process.exit(0);
  if (usable(prebuilt, ['beton_native.node', 'beton_native.bundled.node'])) process.exit(0);
}

const nodeGyp = process.env.npm_config_node_gyp ?? join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
if (!existsSync(join(prebuilt))) process.stdout.write(`beton-studio: no prebuilt native addon for ${target}; compiling it (node-gyp)\n`);
const built = spawnSync(process.execPath, [nodeGyp, 'rebuild', '--release', '--directory', join(root, 'native')], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
if (built.status === 0) process.exit(0);
const log = `${built.stdout ?? ''}${built.stderr ?? ''}`.trimEnd().split('\n').slice(-25).join('\n');
process.stderr.write(
  `${log}\nbeton-studio: compiling the native addon failed (see above). It needs python3, make, a C++ compiler and ` +
    `libjpeg-turbo headers (Debian/Ubuntu: apt-get install build-essential python3 libjpeg62-turbo-dev).\n`,
);
process.exit(1);

#!/usr/bin/env node
// `npm run build:prebuilds`: the prebuilt native addons shipped inside the npm package, so that
// `npm install beton-studio` needs no compiler, no python3 and no libjpeg headers
// (scripts/install.mjs loads these and falls back to node-gyp only where none fits).
//
// Writes native/prebuilds/<platform>-<arch>/:
//   beton_native.node          linked against the system's libjpeg.so.62 (libjpeg-turbo on
//                              Debian/Ubuntu/Fedora): where that library is present the writer
//                              encodes with it, as FFCV's OpenCV does (byte-identical files);
//   beton_native.bundled.node  with libjpeg-turbo compiled in (static, symbols kept private),
//                              loaded where the system has no libjpeg.so.62;
//   beton_turbo.node           the loader's decode addon (it dlopen()s the libturbojpeg that
//                              the @julusian/jpeg-turbo npm package ships; it links no JPEG library).
// The bundled libjpeg-turbo is compiled from source taken from an npm tarball (the registry is
// the one source every developer and CI reach): @julusian/jpeg-turbo@1.1.2 vendors libjpeg-turbo
// 2.1.0 in deps/. npm checks the tarball's integrity; we check it again against the pin below.
// Needs (here only, never at a user's install): cmake, a C/C++ compiler, make, python3, nasm
// (SIMD; without it the bundled library is plain C: same bytes, slower), libjpeg-turbo headers.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_PACKAGE = '@julusian/jpeg-turbo@1.1.2';
const SOURCE_INTEGRITY = 'sha512-UrHKyNEJPyjVfvNg7Y6UbmkRKdTOVCPnXYBVF3A/F2wZT9f5NpS/uuuwxmSFvLvbsBWnyLTqE9GS8IkE21ue/Q==';
const LIBJPEG_TURBO_VERSION = '2.1.0';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'native', '.prebuild');
const target = `${process.platform}-${process.arch}`;
const out = join(root, 'native', 'prebuilds', target);
const quiet = process.argv.includes('--quiet');

const say = (line) => process.stdout.write(`prebuild: ${line}\n`);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
const nodeGyp = process.env.npm_config_node_gyp ?? join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// 1. libjpeg-turbo source from the npm tarball.
say(`fetching libjpeg-turbo ${LIBJPEG_TURBO_VERSION} source (${SOURCE_PACKAGE})`);
const packed = JSON.parse(
  execFileSync('npm', ['pack', SOURCE_PACKAGE, '--json', '--pack-destination', work], {
    cwd: work,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
);
const { filename, integrity } = packed[0];
if (integrity !== SOURCE_INTEGRITY) throw new Error(`${SOURCE_PACKAGE}: unexpected integrity ${integrity}`);
run('tar', ['xzf', join(work, filename), '-C', work, 'package/deps/libjpeg-turbo'], work);
const src = join(work, 'package', 'deps', 'libjpeg-turbo');

// 2. A static, position-independent libjpeg (no TurboJPEG, no tools) into work/jpeg.
const prefix = join(work, 'jpeg');
say('building the static libjpeg-turbo');
run(
  'cmake',
  [
    '-S',
    src,
    '-B',
    join(work, 'jpeg-build'),
    '-DCMAKE_BUILD_TYPE=Release',
    `-DCMAKE_INSTALL_PREFIX=${prefix}`,
    '-DCMAKE_INSTALL_LIBDIR=lib',
    '-DENABLE_SHARED=0',
    '-DENABLE_STATIC=1',
    '-DWITH_TURBOJPEG=0',
    '-DCMAKE_POSITION_INDEPENDENT_CODE=1',
    '-Wno-dev',
  ],
  work,
);
run('cmake', ['--build', join(work, 'jpeg-build'), '--parallel', '--target', 'jpeg-static'], work);
mkdirSync(join(prefix, 'include'), { recursive: true });
mkdirSync(join(prefix, 'lib'), { recursive: true });
copyFileSync(join(work, 'jpeg-build', 'libjpeg.a'), join(prefix, 'lib', 'libjpeg.a'));
for (const h of ['jpeglib.h', 'jmorecfg.h', 'jerror.h']) copyFileSync(join(src, h), join(prefix, 'include', h));
copyFileSync(join(work, 'jpeg-build', 'jconfig.h'), join(prefix, 'include', 'jconfig.h'));

// 3. The addons, built in a copy of native/ so that the checkout's own native/build stays as it is.
const buildOnce = (name, extra) => {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(root, 'native', 'binding.gyp'), join(dir, 'binding.gyp'));
  run('cp', ['-r', join(root, 'native', 'src'), join(dir, 'src')], work);
  say(`building the addons (${name})`);
  // npm passes its nodedir config (Node's headers) to scripts; node-gyp would otherwise download them.
  const nodedir = process.env.npm_config_nodedir ? [`--nodedir=${process.env.npm_config_nodedir}`] : [];
  run(process.execPath, [nodeGyp, 'rebuild', '--release', '--loglevel=error', ...nodedir, '--directory', dir, '--', ...extra], root);
  return join(dir, 'build', 'Release');
};
const system = buildOnce('system', []);
const bundled = buildOnce('bundled', [`-Djpeg_static_dir=${prefix}`]);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
copyFileSync(join(system, 'beton_native.node'), join(out, 'beton_native.node'));
copyFileSync(join(system, 'beton_turbo.node'), join(out, 'beton_turbo.node'));
copyFileSync(join(bundled, 'beton_native.node'), join(out, 'beton_native.bundled.node'));
for (const f of readdirSync(out)) run('strip', ['--strip-unneeded', join(out, f)], out);
writeFileSync(
  join(out, 'prebuild.json'),
  `${JSON.stringify({ target, node: process.version, libjpegTurboBundled: LIBJPEG_TURBO_VERSION, source: SOURCE_PACKAGE }, null, 2)}\n`,
);
rmSync(work, { recursive: true, force: true });
say(`wrote ${readdirSync(out).join(', ')} to ${out}`);
if (!existsSync(join(out, 'beton_native.bundled.node'))) process.exit(1);

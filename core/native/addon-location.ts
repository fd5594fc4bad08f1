/**
 * Where the native addons are, in the order they are tried (scripts/install.mjs decides the
 * same way at `npm install` time):
 *
 * 1. `native/build/Release/` — built on this machine by node-gyp (`npm run build:native`, or
 *    the install fallback where no prebuild fits), linked against the system's libjpeg-turbo.
 * 2. `native/prebuilds/<platform>-<arch>/` — shipped inside the npm package
 *    (`npm run build:prebuilds`): `beton_native.node` links the system's `libjpeg.so.62`, so
 *    where that library exists the writer encodes with it, exactly as FFCV's OpenCV does;
 *    `beton_native.bundled.node` carries libjpeg-turbo compiled in, for machines without it
 *    (it fails to load only when libjpeg.so.62 is missing, which is when it is wanted).
 *
 * `BETON_JPEG_LIBRARY=bundled` skips the system-linked prebuild (to compare the two encoders).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeError } from './native-error.js';

const PACKAGE_NAME = 'beton-studio';

/** Forces the prebuilt addon with libjpeg-turbo compiled in. */
export const JPEG_LIBRARY_ENV = 'BETON_JPEG_LIBRARY';

/** The prebuild folder for this platform, e.g. native/prebuilds/linux-x64. */
export function prebuildDir(packageRoot: string): string {
  return join(packageRoot, 'native', 'prebuilds', `${process.platform}-${process.arch}`);
}

/** Which kind of build a candidate file is. */
export type AddonOrigin = 'local-build' | 'prebuilt-system-jpeg' | 'prebuilt-bundled-jpeg';

export interface AddonCandidate {
  path: string;
  origin: AddonOrigin;
}

/** The beton_native candidates that exist, best first (may be empty). */
export function nativeAddonCandidates(packageRoot: string): AddonCandidate[] {
  const all: AddonCandidate[] = [
    { path: join(packageRoot, 'native', 'build', 'Release', 'beton_native.node'), origin: 'local-build' },
    { path: join(prebuildDir(packageRoot), 'beton_native.node'), origin: 'prebuilt-system-jpeg' },
    { path: join(prebuildDir(packageRoot), 'beton_native.bundled.node'), origin: 'prebuilt-bundled-jpeg' },
  ];
  const forceBundled = process.env[JPEG_LIBRARY_ENV] === 'bundled';
  return all.filter((c) => existsSync(c.path) && !(forceBundled && c.origin !== 'prebuilt-bundled-jpeg'));
}

function isOurPackageRoot(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    const parsed: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && (parsed as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/**
 * The package's root folder. This file runs from core/native/ (sources, via tsx/vitest) or
 * from dist/core/native/ (compiled), so the root is found by walking up rather than by a
 * fixed number of '..'. Throws NativeError('NATIVE_LOAD') when there is none above.
 */
export function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  for (;;) {
    if (isOurPackageRoot(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new NativeError('NATIVE_LOAD', `cannot find the ${PACKAGE_NAME} package root above ${start}`);
    }
    dir = parent;
  }
}

/**
 * The loader's JPEG decode path: libjpeg-turbo's TurboJPEG API, from the
 * `@julusian/jpeg-turbo` npm package (which ships `libturbojpeg.so.0` for
 * Linux in its tarball), loaded at run time by the beton_turbo addon.
 *
 * - {@link decodePath} says which path is active: `'turbojpeg-npm'`, or
 *   `'sharp'` when no libjpeg-turbo could be loaded (no prebuilt library for
 *   this platform, the addon not built, ...); {@link turboStatus} says why.
 * - {@link decodeCropResize} is the hot path: decode only the crop (the
 *   loader: at full scale, FFCV's pixels; with its fastDecode option at the
 *   smallest DCT scale that still covers the output), then area-resize into
 *   `dst`, synchronously on the calling thread. {@link decodeFull} decodes
 *   whole images (SimpleRGBImageDecoder).
 * - decodeCropResizeSharp / decodeFullSharp (core/native/sharp-decode.ts) are the fallback.
 *
 * Module state is per thread: each worker_thread that imports this module
 * loads the addon and calls dlopen on the library once (dlopen is reference
 * counted, so that is cheap and safe); each thread then decodes with its own
 * TurboJPEG handle.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { argumentError, JPEG_SIDE_MAX, requireBytes, requireSide } from './arguments.js';
import { type CropRect, requireCrop } from './area-resize.js';
import type { DecodedRGB } from './jpeg-codec.js';
import { NativeError } from './native-error.js';
import { type TurboHeader, type TurboLibraryInfo, callTurbo, loadTurboAddon } from './turbo-addon.js';

export type DecodePath = 'turbojpeg-npm' | 'sharp';

/** The npm package whose tarball ships libturbojpeg. */
export const TURBOJPEG_PACKAGE = '@julusian/jpeg-turbo';

/**
 * Environment override: a path to a libturbojpeg to load instead of the
 * package's, or `off` to force the sharp fallback.
 */
export const TURBOJPEG_LIB_ENV = 'BETON_TURBOJPEG_LIB';

export type TurboStatus =
  | {
      path: 'turbojpeg-npm';
      library: TurboLibraryInfo;
      /** Version of the npm package the library came from (absent with the env override). */
      packageVersion?: string;
    }
  | {
      path: 'sharp';
      /** Why libjpeg-turbo is not in use. */
      reason: string;
    };

// ---------------------------------------------------------------------------
// Finding and loading the library
// ---------------------------------------------------------------------------

function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

/** File name of the shared library inside the package, per platform. */
function libraryFileName(): string | undefined {
  // The package ships a shared libturbojpeg for Linux only; on macOS and
  // Windows its prebuilds link libjpeg-turbo statically into its own addon.
  return process.platform === 'linux' ? 'libturbojpeg.so.0' : undefined;
}

/**
 * Where the npm package's libturbojpeg is on this platform. Throws
 * NativeError('NATIVE_LOAD') saying why when there is none.
 */
export function findTurboJpegLibrary(): { libPath: string; packageVersion?: string } {
  const override = process.env[TURBOJPEG_LIB_ENV];
  if (override !== undefined && override !== '') {
    if (override === 'off') {
      throw new NativeError('NATIVE_LOAD', `libturbojpeg disabled by ${TURBOJPEG_LIB_ENV}=off`);
    }
    return { libPath: override };
  }
  const require = createRequire(import.meta.url);
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${TURBOJPEG_PACKAGE}/package.json`);
  } catch (error) {
    throw new NativeError('NATIVE_LOAD', `the ${TURBOJPEG_PACKAGE} package is not installed`, { cause: error });
  }
  const packageDir = dirname(manifestPath);
  const packageVersion = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string }).version;
  const fileName = libraryFileName();
  const platformDir = `jpeg-turbo-${process.platform}-${process.arch}${isMusl() ? '-musl' : ''}`;
  if (fileName === undefined) {
    throw new NativeError('NATIVE_LOAD', `${TURBOJPEG_PACKAGE} ships no shared libturbojpeg for ${process.platform}`);
  }
  const libPath = join(packageDir, 'prebuilds', platformDir, fileName);
  if (!existsSync(libPath)) {
    throw new NativeError(
      'NATIVE_LOAD',
      `${TURBOJPEG_PACKAGE}${packageVersion === undefined ? '' : `@${packageVersion}`} ` +
        `has no ${fileName} for ${platformDir} (looked for ${libPath})`,
    );
  }
  return packageVersion === undefined ? { libPath } : { libPath, packageVersion };
}

let status: TurboStatus | undefined;

/**
 * Loads libturbojpeg on first call (in this thread) and reports the active
 * decode path; never throws.
 */
export function turboStatus(): TurboStatus {
  if (status !== undefined) return status;
  try {
    const { libPath, packageVersion } = findTurboJpegLibrary();
    const addon = loadTurboAddon();
    const library = callTurbo(() => addon.turboLoad(libPath));
    status = packageVersion === undefined ? { path: 'turbojpeg-npm', library } : { path: 'turbojpeg-npm', library, packageVersion };
  } catch (error) {
    status = { path: 'sharp', reason: error instanceof Error ? error.message : String(error) };
  }
  return status;
}

/** The active JPEG decode path (loads libturbojpeg on first call). */
export function decodePath(): DecodePath {
  return turboStatus().path;
}

/**
 * The decoder in a few words for people ("libjpeg-turbo 3.1.2", "sharp (slower fallback)"):
 * what the app's sidebar shows; decodePath() is an id for code ('turbojpeg-npm' named the
 * npm package the library came from, which meant nothing to a user — issue 30).
 */
export function decoderName(): string {
  const s = turboStatus();
  return s.path === 'sharp' ? 'sharp (slower fallback)' : `libjpeg-turbo ${s.library.version}`;
}

/** One line for logs, e.g. "libjpeg-turbo 3.1.2 (TurboJPEG 3) from @julusian/jpeg-turbo@2.3.0: /…/libturbojpeg.so.0". */
export function describeDecodePath(): string {
  const s = turboStatus();
  if (s.path === 'sharp') return `sharp fallback (much slower than libjpeg-turbo): ${s.reason}`;
  const from = s.packageVersion === undefined ? '' : ` from ${TURBOJPEG_PACKAGE}@${s.packageVersion}`;
  return `libjpeg-turbo ${s.library.version} (TurboJPEG ${s.library.api})${from}: ${s.library.path}`;
}

/** Throws NativeError('NATIVE_LOAD') with the reason when the TurboJPEG path is not active. */
function requireTurbo(): void {
  const s = turboStatus();
  if (s.path !== 'turbojpeg-npm') {
    throw new NativeError('NATIVE_LOAD', `libjpeg-turbo is not available: ${s.reason}`);
  }
}

// ---------------------------------------------------------------------------
// TurboJPEG wrappers
// ---------------------------------------------------------------------------

export interface TurboDecodeOptions {
  /**
   * TurboJPEG's fast integer IDCT (TJFLAG_FASTDCT), as FFCV decodes. Default
   * true; at full scale the pixels then equal FFCV's (and jpegDecodeRGB's).
   */
  fastDct?: boolean;
  /** Throw NATIVE_JPEG_WARNING for corrupt data instead of decoding it grey-filled like FFCV. */
  strict?: boolean;
  /**
   * The size the image should have (a .beton sample's metadata): a JPEG of another size
   * throws NATIVE_JPEG before anything is decoded, as the Reader rejects such a sample.
   */
  expect?: { width: number; height: number };
}

export interface DecodeCropResizeOptions extends TurboDecodeOptions {
  /**
   * Decode at a reduced DCT scale where one still covers the output (see
   * {@link chooseScale}). Default true; false decodes at full scale, and the
   * output then equals full decode + crop + cv2.resize(INTER_AREA) exactly.
   */
  scaling?: boolean;
}

/** Reads a JPEG header through TurboJPEG. */
export function turboHeader(src: Uint8Array): TurboHeader {
  requireBytes(src, 'src');
  requireTurbo();
  return callTurbo((addon) => addon.turboHeader(src));
}

/**
 * The DCT scaling factor decodeCropResize picks for a crop of cropW x cropH
 * and an output of outW x outH: the smallest s in {1/8, 1/4, 1/2, 1} with
 * cropW*s >= outW and cropH*s >= outH; 1 when even s = 1 does not cover the
 * output (enlargement). libjpeg-turbo also offers 3/8, 5/8, 3/4 and 7/8, but
 * those IDCTs are plain C: measured, 5/8-7/8 decode 1.3-2.2x slower than full
 * scale and 3/8 no faster than 1/2, so they are never chosen.
 */
export function chooseScale(cropW: number, cropH: number, outW: number, outH: number): number {
  requireSide(cropW, 'cropW');
  requireSide(cropH, 'cropH');
  requireSide(outW, 'outW');
  requireSide(outH, 'outH');
  requireTurbo();
  return callTurbo((addon) => addon.turboChooseScale(cropW, cropH, outW, outH));
}

/**
 * The loader's hot path: decodes `crop` (full-resolution pixel coordinates)
 * of the JPEG `src` and resizes it into `dst` as outW x outH packed RGB
 * (tightly packed, outW*outH*3 bytes), synchronously on this thread.
 *
 * The JPEG is decoded at the smallest DCT scaling factor s (see
 * {@link chooseScale}) and only over the crop: TurboJPEG's cropping region,
 * widened left to the scaled iMCU boundary (plus one column of margin on
 * either side so edge upsampling cannot differ). The crop, rounded to scaled
 * pixels, is then area-resized (cv2.INTER_AREA semantics) into `dst`. With
 * s = 1 (`scaling: false`, or no smaller s covers the output) the result is
 * exactly full decode + crop + cv2.resize(INTER_AREA), i.e. FFCV's pixels
 * with fastDct; with s < 1 it differs slightly (DCT-domain downscaling).
 *
 * Returns s. Throws NativeError: NATIVE_LOAD when the TurboJPEG path is not
 * active (use decodeCropResizeSharp, core/native/sharp-decode.ts), NATIVE_JPEG for undecodable
 * data, NATIVE_ARGUMENT for a crop outside the image, NATIVE_BUFFER_SIZE.
 */
export function decodeCropResize(
  src: Uint8Array,
  dst: Uint8Array,
  crop: CropRect,
  outW: number,
  outH: number,
  options: DecodeCropResizeOptions = {},
): number {
  requireBytes(src, 'src');
  requireBytes(dst, 'dst');
  const rect = requireCrop(crop);
  requireSide(outW, 'outW');
  requireSide(outH, 'outH');
  if (rect.x + rect.w > JPEG_SIDE_MAX || rect.y + rect.h > JPEG_SIDE_MAX) {
    throw argumentError('crop lies outside any JPEG');
  }
  const needed = outW * outH * 3;
  if (dst.length < needed) {
    throw new NativeError('NATIVE_BUFFER_SIZE', `dst holds ${dst.length} bytes but ${needed} are needed`);
  }
  requireTurbo();
  const fastDct = options.fastDct ?? true;
  const scaling = options.scaling ?? true;
  const strict = options.strict ?? false;
  const expect = options.expect;
  if (expect) {
    requireSide(expect.width, 'expect.width');
    requireSide(expect.height, 'expect.height');
  }
  return callTurbo((addon) =>
    addon.turboDecodeCropResize(
      src,
      dst,
      rect.x,
      rect.y,
      rect.w,
      rect.h,
      outW,
      outH,
      fastDct,
      scaling,
      strict,
      expect?.width,
      expect?.height,
    ),
  );
}

/**
 * Decodes a whole JPEG to packed RGB at full scale through TurboJPEG (for
 * SimpleRGBImageDecoder). With `dst`, pixels go there (checked before
 * anything is written); without it, a buffer is allocated from the header.
 */
export function decodeFull(src: Uint8Array, dst?: Uint8Array, options: TurboDecodeOptions = {}): DecodedRGB {
  requireBytes(src, 'src');
  requireTurbo();
  let target: Uint8Array;
  if (dst === undefined) {
    const header = turboHeader(src);
    target = new Uint8Array(header.width * header.height * 3);
  } else {
    target = requireBytes(dst, 'dst');
  }
  const fastDct = options.fastDct ?? true;
  const strict = options.strict ?? false;
  const expect = options.expect;
  if (expect) {
    requireSide(expect.width, 'expect.width');
    requireSide(expect.height, 'expect.height');
  }
  const result = callTurbo((addon) => addon.turboDecodeFull(src, target, fastDct, strict, expect?.width, expect?.height));
  return { ...result, data: target.subarray(0, result.width * result.height * 3) };
}

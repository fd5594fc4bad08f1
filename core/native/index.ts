/**
 * The only module that loads the C++ addons: native/build/Release/beton_native.node
 * (mmap, the writer's JPEG codec on the system libjpeg-turbo, area resize) and
 * native/build/Release/beton_turbo.node (the loader's decoders on a
 * libturbojpeg loaded at run time; see core/native/turbo.ts).
 *
 * - `native` is the raw addon, typed and loaded lazily on first use, so that
 *   importing the library never fails just because the addon is not built.
 * - The wrapper functions validate arguments in TypeScript and report every
 *   failure as a {@link NativeError} with a stable `code`.
 *
 * The addon uses Node-API, so one build serves every Node >= 20 and Electron
 * without recompiling.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BetonError } from '../format/errors.js';
import type { PixelMapOptions } from '../pipeline/pixel-kernel.js';
import { type AddonCandidate, type AddonOrigin, nativeAddonCandidates } from './addon-location.js';

// ---------------------------------------------------------------------------
// Types (mirroring native/index.d.ts, which documents the raw addon; they are
// repeated here so that emitted declarations do not point outside dist/).
// ---------------------------------------------------------------------------

export type MadviseAdvice = 'willneed' | 'random' | 'sequential' | 'normal';

export type JpegColorSpace = 'YCbCr' | 'Grayscale' | 'CMYK' | 'YCCK' | 'RGB' | 'unknown';

export interface JpegInfo {
  width: number;
  height: number;
  /** Components in the JPEG stream (1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK). */
  components: number;
  colorSpace: JpegColorSpace;
  progressive: boolean;
}

export interface JpegDecodeResult {
  width: number;
  height: number;
  /** Warnings libjpeg recovered from (it substitutes grey for corrupt data). */
  warnings: number;
  /** The first warning's message, present when `warnings > 0`. */
  warning?: string;
}

/** The raw addon's exports; see native/index.d.ts for their contracts. */
export interface NativeAddon {
  mmapFile(path: string, offset?: number, length?: number): ArrayBuffer;
  madvise(buffer: ArrayBuffer, offset: number, length: number, advice: MadviseAdvice): boolean;
  pageCacheResidency(path: string): { residentBytes: number; sizeBytes: number };
  jpegInfo(src: Uint8Array): JpegInfo;
  jpegDecodeRGB(src: Uint8Array, dst: Uint8Array, fastDct: boolean, strict?: boolean): JpegDecodeResult;
  jpegEncodeRGB(rgb: Uint8Array, width: number, height: number, quality: number): Buffer;
  resizeAreaRGB(src: Uint8Array, srcWidth: number, srcHeight: number, dst: Uint8Array, dstWidth: number, dstHeight: number): void;
  mapPixels(
    src: Uint8Array,
    dst: Uint8Array,
    lut: Uint8Array | null,
    height: number,
    width: number,
    channels: number,
    elemBytes: number,
    flip: boolean,
    chw: boolean,
  ): void;
  pcg64ShuffleU32(values: Uint32Array, start: number, end: number, limbs: Uint16Array, stash: Uint32Array): void;
  gatherRecords(src: Uint8Array, stride: number, offset: number, width: number, ids: Uint32Array, dst: Uint8Array, dstStart: number): void;
  readonly jpegLibrary: string;
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export type NativeErrorCode =
  /** The addon could not be found or loaded. */
  | 'NATIVE_LOAD'
  /** A wrapper rejected an argument before calling C++. */
  | 'NATIVE_ARGUMENT'
  /** A buffer is too small for the image it must hold. */
  | 'NATIVE_BUFFER_SIZE'
  /** open/stat/mmap/madvise failed. */
  | 'NATIVE_IO'
  /** libjpeg rejected the data (corrupt or unsupported JPEG). */
  | 'NATIVE_JPEG'
  /** libjpeg recovered from corrupt data and `strict` was requested. */
  | 'NATIVE_JPEG_WARNING';

const ADDON_ERROR_CODES: ReadonlySet<string> = new Set<NativeErrorCode>([
  'NATIVE_LOAD',
  'NATIVE_BUFFER_SIZE',
  'NATIVE_IO',
  'NATIVE_JPEG',
  'NATIVE_JPEG_WARNING',
]);

export class NativeError extends BetonError<NativeErrorCode> {
  override readonly name: string = 'NativeError';

  constructor(code: NativeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Re-throws an addon failure as a NativeError; anything else unchanged. */
function rethrow(error: unknown): never {
  if (error instanceof Error) {
    const code: unknown = (error as { code?: unknown }).code;
    if (typeof code === 'string' && ADDON_ERROR_CODES.has(code)) {
      throw new NativeError(code as NativeErrorCode, error.message, { cause: error });
    }
    // The addon re-checks arguments and throws TypeError/RangeError; the
    // wrappers should have caught those already, but keep one error type.
    if (error instanceof TypeError || error instanceof RangeError) {
      throw new NativeError('NATIVE_ARGUMENT', error.message, { cause: error });
    }
  }
  throw error;
}

function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    return rethrow(error);
  }
}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

const PACKAGE_NAME = 'beton-studio';
const ADDON_PATH_IN_PACKAGE = join('native', 'build', 'Release', 'beton_native.node');
/** Overrides the addon location, e.g. for Electron's app.asar.unpacked. */
const ADDON_PATH_ENV = 'BETON_NATIVE_ADDON';

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
 * This file runs from core/native/ (sources, via tsx/vitest) or from
 * dist/core/native/ (compiled), so the package root is found by walking up
 * rather than by a fixed number of '..'.
 */
function findPackageRoot(start: string): string {
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

/** Absolute path the addon is (or would be) loaded from: the one loaded, once it is. */
export function nativeAddonPath(): string {
  const override = process.env[ADDON_PATH_ENV];
  if (override !== undefined && override !== '') return override;
  if (loadedFrom !== undefined) return loadedFrom.path;
  const root = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  return nativeAddonCandidates(root)[0]?.path ?? join(root, ADDON_PATH_IN_PACKAGE);
}

/** Which build of the addon is in use (core/native/addon-location.ts); loads it. */
export function nativeAddonOrigin(): AddonOrigin | 'override' {
  loadNative();
  return loadedFrom?.origin ?? 'override';
}

/** One line for diagnostics (`beton --version`): which addon build and JPEG library the writer uses. */
export function nativeDescription(): string {
  const origin = nativeAddonOrigin();
  const where =
    origin === 'prebuilt-bundled-jpeg'
      ? 'prebuilt, libjpeg-turbo compiled in'
      : origin === 'prebuilt-system-jpeg'
        ? "prebuilt, the system's libjpeg"
        : origin === 'local-build'
          ? "built here, the system's libjpeg"
          : `from ${nativeAddonPath()}`;
  return `native addon ${where} (headers: ${loadNative().jpegLibrary})`;
}

let loaded: NativeAddon | undefined;
let loadedFrom: AddonCandidate | undefined;

/**
 * Loads the addon (once) and returns it; throws NativeError('NATIVE_LOAD'). Candidates are
 * tried in order: the prebuild linked against the system's libjpeg.so.62 fails to load where
 * that library is missing, and the one with libjpeg-turbo compiled in is next.
 */
export function loadNative(): NativeAddon {
  if (loaded !== undefined) return loaded;
  const override = process.env[ADDON_PATH_ENV];
  if (override !== undefined && override !== '') {
    loaded = requireAddon<NativeAddon>(override, 'the native addon');
    return loaded;
  }
  const candidates = nativeAddonCandidates(findPackageRoot(dirname(fileURLToPath(import.meta.url))));
  let firstError: unknown;
  for (const candidate of candidates) {
    try {
      loaded = requireAddon<NativeAddon>(candidate.path, 'the native addon');
      loadedFrom = candidate;
      return loaded;
    } catch (error) {
      firstError ??= error;
    }
  }
  throw firstError ?? requireAddonError(nativeAddonPath(), 'the native addon', new Error('no such file'));
}

/** `require`s a .node file; a failure becomes NativeError('NATIVE_LOAD') saying how to build it. */
function requireAddon<T>(path: string, what: string): T {
  try {
    return createRequire(import.meta.url)(path) as T;
  } catch (error) {
    throw requireAddonError(path, what, error);
  }
}

function requireAddonError(path: string, what: string, error: unknown): NativeError {
  const reason = error instanceof Error ? error.message : String(error);
  return new NativeError('NATIVE_LOAD', `cannot load ${what} at ${path} (build it with "npm run build:native"): ${reason}`, {
    cause: error,
  });
}

/** True when the addon can be loaded; never throws. */
export function isNativeAvailable(): boolean {
  try {
    loadNative();
    return true;
  } catch {
    return false;
  }
}

/**
 * The raw addon, loaded on first use. Its functions throw plain Errors
 * carrying a `code`; prefer the validating wrappers below.
 */
export const native: NativeAddon = {
  mmapFile: (path, offset, length) => loadNative().mmapFile(path, offset, length),
  madvise: (buffer, offset, length, advice) => loadNative().madvise(buffer, offset, length, advice),
  pageCacheResidency: (path) => loadNative().pageCacheResidency(path),
  jpegInfo: (src) => loadNative().jpegInfo(src),
  jpegDecodeRGB: (src, dst, fastDct, strict) => loadNative().jpegDecodeRGB(src, dst, fastDct, strict),
  jpegEncodeRGB: (rgb, width, height, quality) => loadNative().jpegEncodeRGB(rgb, width, height, quality),
  resizeAreaRGB: (src, srcWidth, srcHeight, dst, dstWidth, dstHeight) =>
    loadNative().resizeAreaRGB(src, srcWidth, srcHeight, dst, dstWidth, dstHeight),
  mapPixels: (src, dst, lut, height, width, channels, elemBytes, flip, chw) =>
    loadNative().mapPixels(src, dst, lut, height, width, channels, elemBytes, flip, chw),
  pcg64ShuffleU32: (values, start, end, limbs, stash) => loadNative().pcg64ShuffleU32(values, start, end, limbs, stash),
  gatherRecords: (src, stride, offset, width, ids, dst, dstStart) =>
    loadNative().gatherRecords(src, stride, offset, width, ids, dst, dstStart),
  get jpegLibrary() {
    return loadNative().jpegLibrary;
  },
};

// ---------------------------------------------------------------------------
// Validation helpers
// ---------------------------------------------------------------------------

/** libjpeg's JPEG_MAX_DIMENSION. */
export const JPEG_MAX_DIMENSION = 65500;

function argumentError(message: string): NativeError {
  return new NativeError('NATIVE_ARGUMENT', message);
}

function requireBytes(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw argumentError(`${name} must be a Uint8Array`);
  return value;
}

function requireInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw argumentError(`${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

function requirePath(value: unknown): void {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) {
    throw argumentError('path must be a non-empty string without NUL bytes');
  }
}

function requireCapacity(buffer: Uint8Array, needed: number, name: string): void {
  if (buffer.length < needed) {
    throw new NativeError('NATIVE_BUFFER_SIZE', `${name} holds ${buffer.length} bytes but ${needed} are needed`);
  }
}

// ---------------------------------------------------------------------------
// Wrappers
// ---------------------------------------------------------------------------

/**
 * Maps a file read-only; see native/index.d.ts. Whole (up to 4 GiB, what one ArrayBuffer
 * holds), or the window [offset, offset + length) clipped to the file's end: `offset` a
 * multiple of the system page size, `length` at most 2^32. Large files are mapped in
 * windows (the loader's OS cache: core/loader/memory/os-cache.ts).
 */
export function mmapFile(path: string, offset?: number, length?: number): ArrayBuffer {
  requirePath(path);
  if (offset === undefined) return call(() => loadNative().mmapFile(path));
  requireInteger(offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
  requireInteger(length, 'length', 0, 2 ** 32);
  return call(() => loadNative().mmapFile(path, offset, length));
}

/**
 * Paging hint for part of a buffer returned by {@link mmapFile}. Returns false
 * when the buffer is not a mapping (e.g. the Electron copy fallback).
 */
export function madvise(buffer: ArrayBuffer, offset: number, length: number, advice: MadviseAdvice): boolean {
  if (!(buffer instanceof ArrayBuffer)) throw argumentError('buffer must be an ArrayBuffer');
  requireInteger(offset, 'offset', 0, buffer.byteLength);
  requireInteger(length, 'length', 0, buffer.byteLength - offset);
  if (!['willneed', 'random', 'sequential', 'normal'].includes(advice)) {
    throw argumentError(`unknown advice ${String(advice)}`);
  }
  return call(() => loadNative().madvise(buffer, offset, length, advice));
}

/**
 * Fraction (0..1) of `path`'s bytes held in the OS page cache now, by mincore(2); an empty
 * file counts as fully resident. Throws NativeError NATIVE_IO for a missing or odd file.
 */
export function pageCacheResidentFraction(path: string): number {
  requirePath(path);
  const r = call(() => loadNative().pageCacheResidency(path));
  return r.sizeBytes === 0 ? 1 : Math.min(1, r.residentBytes / r.sizeBytes);
}

/** Reads a JPEG's header (dimensions, colour space, progressive flag). */
export function jpegInfo(src: Uint8Array): JpegInfo {
  requireBytes(src, 'src');
  return call(() => loadNative().jpegInfo(src));
}

export interface JpegDecodeOptions {
  /**
   * Use libjpeg-turbo's fast integer IDCT, as FFCV does (TJFLAG_FASTDCT).
   * Default true: decoded pixels then equal FFCV's exactly.
   */
  fastDct?: boolean;
  /** Throw NATIVE_JPEG_WARNING instead of returning recovered (grey-filled) pixels. */
  strict?: boolean;
}

export interface DecodedRGB extends JpegDecodeResult {
  /** Exactly width*height*3 bytes: a view of `dst` when one was given. */
  data: Uint8Array;
}

/**
 * Decodes a JPEG to packed RGB. With `dst`, pixels go there (it must hold at
 * least width*height*3 bytes, checked before anything is written); without
 * it, a buffer of the right size is allocated from the header.
 */
export function jpegDecodeRGB(src: Uint8Array, dst?: Uint8Array, options: JpegDecodeOptions = {}): DecodedRGB {
  requireBytes(src, 'src');
  const fastDct = options.fastDct ?? true;
  const strict = options.strict ?? false;
  let target: Uint8Array;
  if (dst === undefined) {
    const info = jpegInfo(src);
    target = new Uint8Array(info.width * info.height * 3);
  } else {
    // Capacity needs the header, which C++ reads anyway and checks before
    // writing; a second header parse here would only cost time.
    target = requireBytes(dst, 'dst');
  }
  const result = call(() => loadNative().jpegDecodeRGB(src, target, fastDct, strict));
  return { ...result, data: target.subarray(0, result.width * result.height * 3) };
}

/**
 * Encodes packed RGB as a baseline JPEG exactly like FFCV's writer
 * (cv2.imencode with IMWRITE_JPEG_QUALITY = quality on libjpeg-turbo).
 */
export function jpegEncodeRGB(rgb: Uint8Array, width: number, height: number, quality = 90): Buffer {
  requireBytes(rgb, 'rgb');
  requireInteger(width, 'width', 1, JPEG_MAX_DIMENSION);
  requireInteger(height, 'height', 1, JPEG_MAX_DIMENSION);
  requireInteger(quality, 'quality', 0, 100);
  requireCapacity(rgb, width * height * 3, 'rgb');
  return call(() => loadNative().jpegEncodeRGB(rgb, width, height, quality));
}

/** Largest side the resize accepts (keeps C++ indices in 32 bits). */
export const RESIZE_MAX_DIMENSION = 1 << 20;

/**
 * Shrinks packed RGB like cv2.resize(INTER_AREA), bit-exactly; returns the
 * dstWidth*dstHeight*3 result (a view of `dst` when given). Note the argument
 * order differs from the raw addon: `dst` is last so that it can be omitted.
 */
export function resizeAreaRGB(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  dstWidth: number,
  dstHeight: number,
  dst?: Uint8Array,
): Uint8Array {
  requireBytes(src, 'src');
  requireInteger(srcWidth, 'srcWidth', 1, RESIZE_MAX_DIMENSION);
  requireInteger(srcHeight, 'srcHeight', 1, RESIZE_MAX_DIMENSION);
  requireInteger(dstWidth, 'dstWidth', 1, srcWidth);
  requireInteger(dstHeight, 'dstHeight', 1, srcHeight);
  requireCapacity(src, srcWidth * srcHeight * 3, 'src');
  const needed = dstWidth * dstHeight * 3;
  const target = dst === undefined ? new Uint8Array(needed) : requireBytes(dst, 'dst');
  requireCapacity(target, needed, 'dst');
  call(() => {
    loadNative().resizeAreaRGB(src, srcWidth, srcHeight, target, dstWidth, dstHeight);
  });
  return target.subarray(0, needed);
}

/**
 * The fused per-pixel pass in C++ (mirror, per-channel table, HWC→CHW), writing
 * height*width*channels elements into `dst` (bytes of the output typed array).
 * The hot path of every image pipeline (a PixelMapKernel the loader hands to its fused
 * stages): arguments are re-checked by the addon.
 */
export function mapPixels(src: Uint8Array, dst: Uint8Array, lut: Uint8Array | null, o: PixelMapOptions): void {
  call(() => loadNative().mapPixels(src, dst, lut, o.height, o.width, o.channels, o.elemBytes, o.flip, o.chw));
}

// ---------------------------------------------------------------------------
// The TurboJPEG addon (native/build/Release/beton_turbo.node)
// ---------------------------------------------------------------------------
//
// A second addon, built from the same native/ directory, that links no JPEG
// library: it dlopen()s the libturbojpeg that core/native/turbo.ts finds in
// the @julusian/jpeg-turbo npm package. Its types mirror native/turbo.d.ts.

/** What `turboLoad` reports about the library it loaded. */
export interface TurboLibraryInfo {
  /** libjpeg-turbo version from the library's banner, e.g. "3.1.2" ("unknown" if absent). */
  version: string;
  /** Build date from the banner, e.g. "20250916" (may be empty). */
  build: string;
  /** TurboJPEG API generation in use: 3 (cropping region), or 2 for 2.x libraries. */
  api: 2 | 3;
  hasTurboJpeg3: boolean;
  /** The file the TurboJPEG symbols were resolved from (dladdr). */
  path: string;
  /** The path given to turboLoad (the first successful one in this process). */
  requestedPath: string;
  /** Supported downscaling factors, smallest first, e.g. ["1/8", "1/4", ..., "1/1"]. */
  scalingFactors: string[];
}

export interface TurboHeader {
  width: number;
  height: number;
  /** TJSAMP: 0 4:4:4, 1 4:2:2, 2 4:2:0, 3 grey, 4 4:4:0, 5 4:1:1, 6 4:4:1, -1 unknown. */
  subsamp: number;
  colorSpace: 'RGB' | 'YCbCr' | 'Grayscale' | 'CMYK' | 'YCCK' | 'unknown';
}

/** The raw beton_turbo addon; see native/turbo.d.ts for the contracts. */
export interface TurboAddon {
  turboLoad(libPath: string): TurboLibraryInfo;
  turboLoaded(): TurboLibraryInfo | null;
  turboUseApi(api: 2 | 3): boolean;
  turboHeader(src: Uint8Array): TurboHeader;
  turboDecodeFull(
    src: Uint8Array,
    dst: Uint8Array,
    fastDct: boolean,
    strict: boolean,
    expectWidth?: number,
    expectHeight?: number,
  ): { width: number; height: number; warnings: number };
  turboDecodeCropResize(
    src: Uint8Array,
    dst: Uint8Array,
    x: number,
    y: number,
    w: number,
    h: number,
    outW: number,
    outH: number,
    fastDct: boolean,
    scaling: boolean,
    strict: boolean,
    expectWidth?: number,
    expectHeight?: number,
  ): number;
  turboChooseScale(cropW: number, cropH: number, outW: number, outH: number): number;
  cropResizeRGB(
    src: Uint8Array,
    srcWidth: number,
    srcHeight: number,
    x: number,
    y: number,
    w: number,
    h: number,
    dst: Uint8Array,
    outW: number,
    outH: number,
  ): void;
}

/** Overrides the TurboJPEG addon location (defaults to beside beton_native.node). */
const TURBO_ADDON_PATH_ENV = 'BETON_TURBO_ADDON';

/** Absolute path the TurboJPEG addon is (or would be) loaded from. */
export function turboAddonPath(): string {
  const override = process.env[TURBO_ADDON_PATH_ENV];
  if (override !== undefined && override !== '') return override;
  return join(dirname(nativeAddonPath()), 'beton_turbo.node');
}

let loadedTurbo: TurboAddon | undefined;

/**
 * Loads the TurboJPEG addon (once per thread) and returns it; throws
 * NativeError('NATIVE_LOAD'). Loading the addon does not load libturbojpeg:
 * core/native/turbo.ts does that with `turboLoad`.
 */
export function loadTurboAddon(): TurboAddon {
  loadedTurbo ??= requireAddon<TurboAddon>(turboAddonPath(), 'the TurboJPEG addon');
  return loadedTurbo;
}

/** Calls into the TurboJPEG addon, mapping its failures to NativeError. */
export function callTurbo<T>(fn: (addon: TurboAddon) => T): T {
  const addon = loadTurboAddon();
  return call(() => fn(addon));
}

/** A rectangle in pixel coordinates: left column, top row, width, height. */
export interface CropRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Checks that `crop` is a non-empty integer rectangle inside width x height (when given). */
export function requireCrop(crop: unknown, width?: number, height?: number): CropRect {
  if (typeof crop !== 'object' || crop === null) throw argumentError('crop must be {x, y, w, h}');
  const { x, y, w, h } = crop as Record<string, unknown>;
  const maxX = width === undefined ? RESIZE_MAX_DIMENSION : width - 1;
  const maxY = height === undefined ? RESIZE_MAX_DIMENSION : height - 1;
  const rect: CropRect = {
    x: requireInteger(x, 'crop.x', 0, maxX),
    y: requireInteger(y, 'crop.y', 0, maxY),
    w: 0,
    h: 0,
  };
  rect.w = requireInteger(w, 'crop.w', 1, (width ?? RESIZE_MAX_DIMENSION + 1) - rect.x);
  rect.h = requireInteger(h, 'crop.h', 1, (height ?? RESIZE_MAX_DIMENSION + 1) - rect.y);
  return rect;
}

/**
 * cv2.resize(src[y:y+h, x:x+w], (outWidth, outHeight), interpolation=INTER_AREA)
 * for packed RGB stored without compression (FFCV's raw image mode): reads
 * the crop in place, no copy. Bit-exact with OpenCV when shrinking (and
 * for same size, a copy); when enlarging, OpenCV's bilinear "area mode" with
 * its fixed-point weights, rounded like its SIMD kernel (it may differ from
 * OpenCV by one level on a few pixels; constant images stay exact).
 * Returns the outWidth*outHeight*3 result (a view of `dst` when given).
 */
export function cropResizeRGB(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  crop: CropRect,
  outWidth: number,
  outHeight: number,
  dst?: Uint8Array,
): Uint8Array {
  requireBytes(src, 'src');
  requireInteger(srcWidth, 'srcWidth', 1, RESIZE_MAX_DIMENSION);
  requireInteger(srcHeight, 'srcHeight', 1, RESIZE_MAX_DIMENSION);
  const rect = requireCrop(crop, srcWidth, srcHeight);
  requireInteger(outWidth, 'outWidth', 1, RESIZE_MAX_DIMENSION);
  requireInteger(outHeight, 'outHeight', 1, RESIZE_MAX_DIMENSION);
  requireCapacity(src, srcWidth * srcHeight * 3, 'src');
  const needed = outWidth * outHeight * 3;
  const target = dst === undefined ? new Uint8Array(needed) : requireBytes(dst, 'dst');
  requireCapacity(target, needed, 'dst');
  callTurbo((addon) => {
    addon.cropResizeRGB(src, srcWidth, srcHeight, rect.x, rect.y, rect.w, rect.h, target, outWidth, outHeight);
  });
  return target.subarray(0, needed);
}

/**
 * numpy's shuffle of values[start, end) with a PCG64 whose state is handed over as `limbs`
 * (state then increment, 16-bit, least significant first) and `stash` ([hasStash, value]);
 * both are updated to the advanced state. Bit-exact with core/loader/orders/pcg64.ts.
 */
export function pcg64ShuffleU32(values: Uint32Array, start: number, end: number, limbs: Uint16Array, stash: Uint32Array): void {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || end > values.length) {
    throw argumentError(`pcg64ShuffleU32: range ${start}..${end} is outside an array of ${values.length}`);
  }
  if (limbs.length !== 16 || stash.length !== 2) throw argumentError('pcg64ShuffleU32: limbs must hold 16 and stash 2 elements');
  call(() => loadNative().pcg64ShuffleU32(values, start, end, limbs, stash));
}

/**
 * Copies `width` bytes at ids[k]·stride + offset of `src` (a metadata table) to row k of
 * `dst` from `dstStart`: a tabular loader's whole per-sample work, one call per batch.
 */
export function gatherRecords(
  src: Uint8Array,
  stride: number,
  offset: number,
  width: number,
  ids: Uint32Array,
  dst: Uint8Array,
  dstStart: number,
): void {
  if (![stride, offset, width, dstStart].every((v) => Number.isInteger(v) && v >= 0) || offset + width > stride) {
    throw argumentError(`gatherRecords: bad layout (stride ${stride}, offset ${offset}, width ${width}, dstStart ${dstStart})`);
  }
  call(() => loadNative().gatherRecords(src, stride, offset, width, ids, dst, dstStart));
}

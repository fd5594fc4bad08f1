/**
 * The beton_turbo addon (native/build/Release/beton_turbo.node): a second addon, built from
 * the same native/ directory, that links no JPEG library. It dlopen()s the libturbojpeg that
 * core/native/turbo.ts finds in the @julusian/jpeg-turbo npm package. This module finds and
 * loads it and holds its typed binding, the one declaration of what the C++ exports
 * (native/src/turbo_addon.cc).
 *
 * Everything is synchronous and runs on the calling thread; each thread gets its own
 * TurboJPEG decompressor (thread_local, created on first use).
 */
import { dirname, join } from 'node:path';
import { nativeAddonPath } from './beton-addon.js';
import { callAddon } from './native-error.js';
import { requireAddon } from './require-addon.js';

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

/**
 * The raw beton_turbo addon. Raw failures are plain Errors with a `code` of 'NATIVE_LOAD' |
 * 'NATIVE_JPEG' | 'NATIVE_JPEG_WARNING' | 'NATIVE_BUFFER_SIZE', or TypeError/RangeError for
 * malformed arguments (RangeError also for a crop outside the image); {@link callTurbo}
 * turns them into NativeError.
 */
export interface TurboAddon {
  /**
   * dlopen()s libturbojpeg (RTLD_NOW | RTLD_LOCAL) and resolves the TurboJPEG 3 API (tj3*),
   * or the TurboJPEG 2.0+ API when the library is 2.x. Once per process: later calls return
   * the loaded library whatever path they pass.
   */
  turboLoad(libPath: string): TurboLibraryInfo;
  /** The loaded library, or null before a successful turboLoad. */
  turboLoaded(): TurboLibraryInfo | null;
  /**
   * Process-wide switch between the TurboJPEG 3 and 2 code paths (for testing the 2.x
   * fallback with a 3.x library). False when the library lacks that API.
   */
  turboUseApi(api: 2 | 3): boolean;
  /** Reads the JPEG header. */
  turboHeader(src: Uint8Array): TurboHeader;
  /**
   * Decodes the whole image to packed RGB in `dst` (at least width*height*3 bytes) at full
   * scale, with fancy upsampling; fastDct selects the fast integer IDCT (FFCV's
   * TJFLAG_FASTDCT). Corrupt-but-recovered data counts in `warnings` unless `strict`, which
   * throws NATIVE_JPEG_WARNING. With expectWidth/expectHeight, a JPEG of another size throws
   * NATIVE_JPEG before decoding.
   */
  turboDecodeFull(
    src: Uint8Array,
    dst: Uint8Array,
    fastDct: boolean,
    strict: boolean,
    expectWidth?: number,
    expectHeight?: number,
  ): { width: number; height: number; warnings: number };
  /**
   * Decodes the crop (x, y, w, h in full-resolution pixels) and area-resizes it to
   * outW x outH packed RGB in `dst`. With `scaling`, decodes at the smallest DCT scaling
   * factor s in {1/8, 1/4, 1/2, 1} with w*s >= outW and h*s >= outH (the other factors
   * libjpeg-turbo offers have no SIMD IDCT and decode more slowly than full scale). Returns
   * s. With expectWidth/expectHeight, a JPEG of another size throws NATIVE_JPEG before
   * decoding.
   */
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
  /** The scaling factor turboDecodeCropResize would choose (1 before turboLoad). */
  turboChooseScale(cropW: number, cropH: number, outW: number, outH: number): number;
  /**
   * cv2.resize(src[y:y+h, x:x+w], (outW, outH), INTER_AREA) on packed RGB, reading the crop
   * in place. Needs no libturbojpeg.
   */
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
  return callAddon(() => fn(addon));
}

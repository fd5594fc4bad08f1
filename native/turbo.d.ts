// Hand-written types for the raw TurboJPEG addon, native/build/Release/beton_turbo.node.
//
// Application code should import core/native/turbo.ts instead, which finds
// and loads the npm-shipped libturbojpeg, validates arguments and turns
// failures into NativeError. Raw failures are plain Errors with a `code` of
// 'NATIVE_LOAD' | 'NATIVE_JPEG' | 'NATIVE_JPEG_WARNING' | 'NATIVE_BUFFER_SIZE',
// or TypeError/RangeError for malformed arguments (RangeError also for a crop
// outside the image).
//
// Everything is synchronous and runs on the calling thread; each thread gets
// its own TurboJPEG decompressor (thread_local, created on first use).

export interface TurboLibraryInfo {
  version: string;
  build: string;
  api: 2 | 3;
  hasTurboJpeg3: boolean;
  path: string;
  requestedPath: string;
  scalingFactors: string[];
}

export interface TurboHeader {
  width: number;
  height: number;
  subsamp: number;
  colorSpace: 'RGB' | 'YCbCr' | 'Grayscale' | 'CMYK' | 'YCCK' | 'unknown';
}

/**
 * dlopen()s libturbojpeg (RTLD_NOW | RTLD_LOCAL) and resolves the TurboJPEG 3
 * API (tj3*), or the TurboJPEG 2.0+ API when the library is 2.x. Once per
 * process: later calls return the loaded library whatever path they pass.
 */
export function turboLoad(libPath: string): TurboLibraryInfo;

/** The loaded library, or null before a successful turboLoad. */
export function turboLoaded(): TurboLibraryInfo | null;

/**
 * Process-wide switch between the TurboJPEG 3 and 2 code paths (for testing
 * the 2.x fallback with a 3.x library). False when the library lacks that API.
 */
export function turboUseApi(api: 2 | 3): boolean;

/** Reads the JPEG header. */
export function turboHeader(src: Uint8Array): TurboHeader;

/**
 * Decodes the whole image to packed RGB in `dst` (at least width*height*3
 * bytes) at full scale, with fancy upsampling; fastDct selects the fast
 * integer IDCT (FFCV's TJFLAG_FASTDCT). Corrupt-but-recovered data counts in
 * `warnings` unless `strict`, which throws NATIVE_JPEG_WARNING.
 */
export function turboDecodeFull(
  src: Uint8Array,
  dst: Uint8Array,
  fastDct: boolean,
  strict: boolean,
  /** With expectHeight: a JPEG of another size throws NATIVE_JPEG before decoding. */
  expectWidth?: number,
  expectHeight?: number,
): { width: number; height: number; warnings: number };

/**
 * Decodes the crop (x, y, w, h in full-resolution pixels) and area-resizes it
 * to outW x outH packed RGB in `dst`. With `scaling`, decodes at the smallest
 * DCT scaling factor s in {1/8, 1/4, 1/2, 1} with w*s >= outW and h*s >= outH
 * (the other factors libjpeg-turbo offers have no SIMD IDCT and decode more
 * slowly than full scale). Returns s.
 */
export function turboDecodeCropResize(
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
  /** With expectHeight: a JPEG of another size throws NATIVE_JPEG before decoding. */
  expectWidth?: number,
  expectHeight?: number,
): number;

/** The scaling factor turboDecodeCropResize would choose (1 before turboLoad). */
export function turboChooseScale(cropW: number, cropH: number, outW: number, outH: number): number;

/**
 * cv2.resize(src[y:y+h, x:x+w], (outW, outH), INTER_AREA) on packed RGB,
 * reading the crop in place. Needs no libturbojpeg.
 */
export function cropResizeRGB(
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

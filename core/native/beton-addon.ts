/**
 * The beton_native addon (native/build/Release/beton_native.node, or a prebuild: see
 * core/native/addon-location.ts): mmap, the writer's JPEG codec on the system libjpeg-turbo,
 * area resize, and the loader's hot loops. This module finds and loads it and holds its
 * typed binding, the one declaration of what the C++ exports (native/src/addon.cc).
 *
 * - `native` is the raw addon, typed and loaded lazily on first use, so that importing the
 *   library never fails just because the addon is not built.
 * - The validating wrappers live one concept per file beside this one (mmap.ts,
 *   jpeg-codec.ts, area-resize.ts, pixel-map.ts, pcg64-shuffle.ts, gather-records.ts, gather-plan.ts,
 *   writer-transcode.ts) and report every failure as a NativeError with a stable `code`.
 *
 * The addon uses Node-API, so one build serves every Node >= 20 and Electron without
 * recompiling.
 */
import { join } from 'node:path';
import { type AddonCandidate, type AddonOrigin, nativeAddonCandidates, packageRoot } from './addon-location.js';
import { requireAddon, requireAddonError } from './require-addon.js';

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

/** What libjpeg says about a whole JPEG file (jpegCheck). */
export interface JpegCheck {
  warnings: number;
  /** The first warning ('' when none). */
  warning: string;
  /** What stopped the decode ('' when it completed). */
  error: string;
}

/**
 * The raw addon's exports. Its functions throw plain Errors with a `code` of 'NATIVE_IO' |
 * 'NATIVE_JPEG' | 'NATIVE_JPEG_WARNING' | 'NATIVE_BUFFER_SIZE', or TypeError/RangeError for
 * malformed arguments; the wrappers turn them into NativeError.
 */
export interface NativeAddon {
  /**
   * Maps the file read-only (MAP_SHARED, PROT_READ): whole (refused above 4 GiB, what one
   * ArrayBuffer holds), or the window [offset, offset + length) clipped to the file's end
   * (offset a multiple of the system page size). The mapping is released when the
   * ArrayBuffer is garbage collected. Empty files give an empty ArrayBuffer. Where the
   * runtime forbids external buffers (Electron), the file is read into an ordinary
   * ArrayBuffer instead.
   */
  mmapFile(path: string, offset?: number, length?: number): ArrayBuffer;
  /**
   * Gives the kernel a paging hint for a range of a buffer from mmapFile. Returns false
   * (doing nothing) when the buffer is not a live mapping.
   */
  madvise(buffer: ArrayBuffer, offset: number, length: number, advice: MadviseAdvice): boolean;
  /**
   * How much of the file the OS page cache holds now (mincore(2) over a fresh mapping,
   * which faults nothing in). residentBytes counts whole pages, clamped to the size.
   */
  pageCacheResidency(path: string): { residentBytes: number; sizeBytes: number };
  /** Parses the JPEG header only. */
  jpegInfo(src: Uint8Array): JpegInfo;
  /**
   * Decodes to tightly packed RGB in `dst` (at least width*height*3 bytes). fastDct = true
   * reproduces TurboJPEG's tjDecompress2(TJPF_RGB, TJFLAG_FASTDCT), i.e. FFCV's pixels;
   * false uses the accurate ISLOW IDCT (PIL's pixels). strict = true throws
   * NATIVE_JPEG_WARNING when libjpeg had to recover from corrupt data; by default such
   * images decode like they do in FFCV.
   */
  jpegDecodeRGB(src: Uint8Array, dst: Uint8Array, fastDct: boolean, strict?: boolean): JpegDecodeResult;
  /**
   * Encodes packed RGB as baseline 4:2:0 JFIF, byte-identical to OpenCV 4.6's
   * cv2.imencode('.jpg', bgr, [IMWRITE_JPEG_QUALITY, quality]) (FFCV's writer). quality is
   * an integer in [0, 100].
   */
  jpegEncodeRGB(rgb: Uint8Array, width: number, height: number, quality: number): Buffer;
  /**
   * Shrinks packed RGB like cv2.resize(..., interpolation=cv2.INTER_AREA), bit-exactly.
   * dstWidth <= srcWidth and dstHeight <= srcHeight.
   */
  resizeAreaRGB(src: Uint8Array, srcWidth: number, srcHeight: number, dst: Uint8Array, dstWidth: number, dstHeight: number): void;
  /**
   * The loader's fused pixel pass over packed HWC uint8 pixels (height x width x
   * channels): optional horizontal mirror, optional per-channel table, HWC or CHW output.
   * `lut` holds channels*256 entries of `elemBytes` bytes each, already in the output's
   * element type (null: identity, uint8 out, elemBytes 1). `dst` receives
   * height*width*channels entries; it must not overlap `src`.
   */
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
  /**
   * numpy's Generator.shuffle of values[start, end) with PCG64 (XSL-RR): the generator's
   * state and increment as 16 16-bit limbs (least significant first) and its 32-bit stash
   * as [hasStash, value]; both are written back advanced.
   */
  pcg64ShuffleU32(values: Uint32Array, start: number, end: number, limbs: Uint16Array, stash: Uint32Array): void;
  /**
   * Copies `width` bytes at ids[k] * stride + offset of `src` into row k of `dst`, rows
   * packed from byte `dstStart`. Throws RangeError for rows or ids outside the buffers.
   */
  gatherRecords(src: Uint8Array, stride: number, offset: number, width: number, ids: Uint32Array, dst: Uint8Array, dstStart: number): void;
  /**
   * A gather set up once (native/src/gather_plan.cc): `columns` holds [offset, width,
   * slotBytes] per destination in `dsts`. Returns an opaque handle for gatherPlanOrder/Run.
   */
  gatherPlanCreate(table: Uint8Array, stride: number, columns: Float64Array, dsts: Uint8Array[]): unknown;
  /** The order the plan's runs index into. */
  gatherPlanOrder(plan: unknown, order: Uint32Array): void;
  /** Rows order[start, start + count) into slot `slot`; −1, or the position of an id outside the table. */
  gatherPlanRun(plan: unknown, start: number, count: number, slot: number): number;
  /** The libjpeg(-turbo) version the addon was compiled against, e.g. "libjpeg-turbo 2.1.5". */
  readonly jpegLibrary: string;
  // The writer's one-call functions (native/src/writer_transcode.cc) are optional: an addon
  // built before they existed lacks them, and core/native/writer-transcode.ts then falls
  // back to the step-by-step path, which gives the same bytes.
  /**
   * Decodes the JPEG `src` (srcWidth x srcHeight) as PIL does, shrinks it (INTER_AREA) to
   * dstWidth x dstHeight and returns OpenCV's JPEG at `quality`, or raw RGB for quality -1;
   * null when the file does not qualify. `stages` (3 elements) gets the thread CPU ms of
   * decode, resize and encode added.
   */
  transcodeJpeg?(
    src: Uint8Array,
    srcWidth: number,
    srcHeight: number,
    dstWidth: number,
    dstHeight: number,
    quality: number,
    stages?: Float64Array,
  ): Uint8Array | null;
  /** The calling thread's CPU time in ms (clock_gettime(CLOCK_THREAD_CPUTIME_ID)). */
  threadCpuMs?(): number;
  /** Decodes the whole file with libjpeg (pixels discarded) and reports its warnings and error. */
  jpegCheck?(src: Uint8Array): JpegCheck;
}

const ADDON_PATH_IN_PACKAGE = join('native', 'build', 'Release', 'beton_native.node');
/** Overrides the addon location, e.g. for Electron's app.asar.unpacked. */
const ADDON_PATH_ENV = 'BETON_NATIVE_ADDON';

let loaded: NativeAddon | undefined;
let loadedFrom: AddonCandidate | undefined;

/** Absolute path the addon is (or would be) loaded from: the one loaded, once it is. */
export function nativeAddonPath(): string {
  const override = process.env[ADDON_PATH_ENV];
  if (override !== undefined && override !== '') return override;
  if (loadedFrom !== undefined) return loadedFrom.path;
  const root = packageRoot();
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
  const candidates = nativeAddonCandidates(packageRoot());
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
 * carrying a `code`; prefer the validating wrappers.
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
  gatherPlanCreate: (table, stride, columns, dsts) => loadNative().gatherPlanCreate(table, stride, columns, dsts),
  gatherPlanOrder: (plan, order) => loadNative().gatherPlanOrder(plan, order),
  gatherPlanRun: (plan, start, count, slot) => loadNative().gatherPlanRun(plan, start, count, slot),
  get jpegLibrary() {
    return loadNative().jpegLibrary;
  },
};

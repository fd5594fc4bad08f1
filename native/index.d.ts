// Hand-written types for the raw addon, native/build/Release/beton_native.node.
//
// Application code should import core/native/index.ts instead, which loads
// the addon lazily, validates arguments and turns failures into NativeError.
// Failures thrown by the raw functions are plain Error objects with a `code`
// of 'NATIVE_IO' | 'NATIVE_JPEG' | 'NATIVE_JPEG_WARNING' | 'NATIVE_BUFFER_SIZE',
// or TypeError/RangeError for malformed arguments.

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
  /** libjpeg warnings (corrupt data it recovered from by inserting grey). */
  warnings: number;
  /** The first warning's message, present when `warnings > 0`. */
  warning?: string;
}

/**
 * Maps the file read-only (MAP_SHARED, PROT_READ): whole (refused above 4 GiB,
 * what one ArrayBuffer holds), or the window [offset, offset + length) clipped
 * to the file's end (offset a multiple of the system page size). The mapping is
 * released when the ArrayBuffer is garbage collected. Empty files give an
 * empty ArrayBuffer. Where the runtime forbids external buffers (Electron),
 * the file is read into an ordinary ArrayBuffer instead.
 */
export function mmapFile(path: string, offset?: number, length?: number): ArrayBuffer;

/**
 * Gives the kernel a paging hint for a range of a buffer from mmapFile.
 * Returns false (doing nothing) when the buffer is not a live mapping.
 */
export function madvise(buffer: ArrayBuffer, offset: number, length: number, advice: MadviseAdvice): boolean;

/**
 * How much of the file the OS page cache holds now (mincore(2) over a fresh
 * mapping, which faults nothing in). residentBytes counts whole pages,
 * clamped to the size.
 */
export function pageCacheResidency(path: string): { residentBytes: number; sizeBytes: number };

/** Parses the JPEG header only. */
export function jpegInfo(src: Uint8Array): JpegInfo;

/**
 * Decodes to tightly packed RGB in `dst` (at least width*height*3 bytes).
 * fastDct = true reproduces TurboJPEG's tjDecompress2(TJPF_RGB, TJFLAG_FASTDCT),
 * i.e. FFCV's pixels; false uses the accurate ISLOW IDCT (PIL's pixels).
 * strict = true throws NATIVE_JPEG_WARNING when libjpeg had to recover from
 * corrupt data; by default such images decode like they do in FFCV.
 */
export function jpegDecodeRGB(src: Uint8Array, dst: Uint8Array, fastDct: boolean, strict?: boolean): JpegDecodeResult;

/**
 * Encodes packed RGB as baseline 4:2:0 JFIF, byte-identical to OpenCV 4.6's
 * cv2.imencode('.jpg', bgr, [IMWRITE_JPEG_QUALITY, quality]) (FFCV's writer).
 * quality is an integer in [0, 100].
 */
export function jpegEncodeRGB(rgb: Uint8Array, width: number, height: number, quality: number): Buffer;

/**
 * Shrinks packed RGB like cv2.resize(..., interpolation=cv2.INTER_AREA),
 * bit-exactly. dstWidth <= srcWidth and dstHeight <= srcHeight.
 */
export function resizeAreaRGB(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  dst: Uint8Array,
  dstWidth: number,
  dstHeight: number,
): void;

/**
 * The loader's fused pixel pass over packed HWC uint8 pixels (height x width x
 * channels): optional horizontal mirror, optional per-channel table, HWC or
 * CHW output. `lut` holds channels*256 entries of `elemBytes` bytes each,
 * already in the output's element type (null: identity, uint8 out, elemBytes 1).
 * `dst` receives height*width*channels entries; it must not overlap `src`.
 */
export function mapPixels(
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

/** The libjpeg(-turbo) version the addon was compiled against, e.g. "libjpeg-turbo 2.1.5". */
export const jpegLibrary: string;

/**
 * numpy's Generator.shuffle of values[start, end) with PCG64 (XSL-RR): the generator's
 * state and increment as 16 16-bit limbs (least significant first) and its 32-bit stash
 * as [hasStash, value]; both are written back advanced.
 */
export function pcg64ShuffleU32(values: Uint32Array, start: number, end: number, limbs: Uint16Array, stash: Uint32Array): void;

/**
 * Copies `width` bytes at ids[k] * stride + offset of `src` into row k of `dst`, rows
 * packed from byte `dstStart`. Throws RangeError for rows or ids outside the buffers.
 */
export function gatherRecords(
  src: Uint8Array,
  stride: number,
  offset: number,
  width: number,
  ids: Uint32Array,
  dst: Uint8Array,
  dstStart: number,
): void;

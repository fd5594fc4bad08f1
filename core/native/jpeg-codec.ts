/**
 * The writer's JPEG codec on the system libjpeg-turbo (beton_native's jpeg_*.cc): header,
 * decode and FFCV-identical encode, with arguments checked before C++ sees them. The
 * loader decodes through core/native/turbo.ts instead.
 */
import { requireBytes, requireCapacity, requireInteger } from './arguments.js';
import { type JpegDecodeResult, type JpegInfo, loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/** libjpeg's JPEG_MAX_DIMENSION. */
export const JPEG_MAX_DIMENSION = 65500;

/** Reads a JPEG's header (dimensions, colour space, progressive flag). */
export function jpegInfo(src: Uint8Array): JpegInfo {
  requireBytes(src, 'src');
  return callAddon(() => loadNative().jpegInfo(src));
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
  const result = callAddon(() => loadNative().jpegDecodeRGB(src, target, fastDct, strict));
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
  return callAddon(() => loadNative().jpegEncodeRGB(rgb, width, height, quality));
}

/**
 * The addon's transcodeJpeg (native/src/writer_transcode.cc): the writer's common image
 * path — source JPEG decoded as PIL decodes it, INTER_AREA shrink, stored raw or as
 * OpenCV's JPEG — in one synchronous call, with the pixels kept in per-thread buffers.
 */
import { type JpegCheck, type NativeAddon, loadNative } from './beton-addon.js';
import { JPEG_MAX_DIMENSION } from './jpeg-codec.js';

let fn: NonNullable<NativeAddon['transcodeJpeg']> | null | undefined;

/**
 * The addon's function, or null when it cannot be had (no addon, or one built before the
 * function existed): callers then take the step-by-step path, which gives the same bytes.
 */
function transcodeFn(): NonNullable<NativeAddon['transcodeJpeg']> | null {
  if (fn === undefined) {
    try {
      const addon = loadNative();
      fn = typeof addon.transcodeJpeg === 'function' ? addon.transcodeJpeg.bind(addon) : null;
    } catch {
      fn = null;
    }
  }
  return fn;
}

/** Whether the one-call path is available (the bench reports which path ran). */
export function hasTranscodeJpeg(): boolean {
  return transcodeFn() !== null;
}

/**
 * Decodes `src` (a JPEG of srcWidth x srcHeight, as the caller parsed from its header),
 * shrinks it to dstWidth x dstHeight (at most the source size) and returns the JPEG at
 * `quality` (0..100), or the raw RGB pixels when quality is null. Null when the file does
 * not qualify — libjpeg reads another size or colour space than 8-bit YCbCr/greyscale, or
 * reports any error or warning — or when the addon lacks the function. `stages` (3
 * elements): the thread CPU ms of decode, resize and encode are added to it.
 */
export function transcodeJpeg(
  src: Uint8Array,
  srcWidth: number,
  srcHeight: number,
  dstWidth: number,
  dstHeight: number,
  quality: number | null,
  stages?: Float64Array,
): Uint8Array | null {
  const f = transcodeFn();
  if (!f) return null;
  // The addon throws on sizes outside these; here they only mean "not this path".
  if (!(
    srcWidth <= JPEG_MAX_DIMENSION &&
    srcHeight <= JPEG_MAX_DIMENSION &&
    dstWidth >= 1 &&
    dstHeight >= 1 &&
    dstWidth <= srcWidth &&
    dstHeight <= srcHeight
  ))
    return null;
  const out = stages
    ? f(src, srcWidth, srcHeight, dstWidth, dstHeight, quality ?? -1, stages)
    : f(src, srcWidth, srcHeight, dstWidth, dstHeight, quality ?? -1);
  return out === null ? null : new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

let cpuFn: (() => number) | null | undefined;

/**
 * The calling thread's CPU time in ms (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), for the
 * writer's stage timings: on a shared machine wall time also counts other processes.
 * Null when the addon lacks it.
 */
export function threadCpuMs(): number | null {
  if (cpuFn === undefined) {
    try {
      const addon = loadNative();
      cpuFn = typeof addon.threadCpuMs === 'function' ? addon.threadCpuMs.bind(addon) : null;
    } catch {
      cpuFn = null;
    }
  }
  return cpuFn ? cpuFn() : null;
}

let checkFn: ((src: Uint8Array) => JpegCheck) | null | undefined;

/**
 * Decodes the whole file with libjpeg (pixels discarded) and reports its warnings and error:
 * the source decoder's damage check for JPEGs sharp converts. Per call and thread-safe,
 * unlike libvips' warning handling: with several encode workers decoding through sharp at
 * once, one worker's warning could fail another's load or be lost (a cut-off file then
 * decoded to grey fill). Null when the addon lacks it.
 */
export function jpegCheck(src: Uint8Array): JpegCheck | null {
  if (checkFn === undefined) {
    try {
      const addon = loadNative();
      checkFn = typeof addon.jpegCheck === 'function' ? addon.jpegCheck.bind(addon) : null;
    } catch {
      checkFn = null;
    }
  }
  return checkFn ? checkFn(src) : null;
}

/** Tightly packed 8-bit RGB pixels, row-major, channels interleaved. */
export interface RGBPixels {
  data: Uint8Array;
  width: number;
  height: number;
  /** Size of the encoded source file the pixels came from, when read from one. */
  sourceBytes?: number;
}

/** What an RGBImageField accepts: pixels, a file path, or an encoded image file's bytes. */
/**
 * An image to encode. `confined` (beton serve): `path` is the real path a read guard
 * checked; the file opened must be that very file (no folder of it swapped for a link since).
 */
export type ImageInput = RGBPixels | string | { path: string; confined?: boolean } | { file: Uint8Array; name?: string };

/**
 * Image work a field needs but must not implement itself (it is pure): the node layer
 * provides it with sharp (source decoding) and the native addon (resize, JPEG).
 */
export interface ImageCodec {
  load(input: ImageInput, baseDir?: string): Promise<RGBPixels>;
  /** Width and height from the source file's header alone (no decode), or null when it does not say. */
  headerDims?(input: ImageInput, baseDir?: string): { width: number; height: number } | null;
  /** Area-averaging shrink, as OpenCV's INTER_AREA. */
  resizeArea(src: RGBPixels, width: number, height: number): RGBPixels;
  /** Baseline 4:2:0 JFIF at the given quality (OpenCV's imencode defaults). */
  encodeJpeg(src: RGBPixels, quality: number): Uint8Array;
  /** Decodes to RGB exactly as FFCV does (libjpeg-turbo, fast integer IDCT). */
  decodeJpeg(bytes: Uint8Array): RGBPixels;
  /**
   * The source file's JPEG bytes when they can be stored unchanged (8-bit YCbCr or grey
   * JPEG, no EXIF rotation, no resize under maxResolution, complete), else null.
   */
  probePassThrough?(
    input: ImageInput,
    baseDir: string | undefined,
    maxResolution: number | null,
  ): Promise<{ bytes: Uint8Array; width: number; height: number } | null>;
  /**
   * Read, decode, resize and store in one step for the inputs it handles (the common
   * source JPEG), with the bytes load → resizeArea → encodeJpeg would give; otherwise
   * `{ fallback }`, the input to load() instead. Synchronous: it is CPU work on the
   * calling (worker) thread, and a promise per image would only add latency.
   */
  transcode?(input: ImageInput, baseDir: string | undefined, plan: TranscodePlanner): TranscodeOutcome;
}

/** What an image field stores for a source of the given size: the stored size, and JPEG quality or null for raw. */
export type TranscodePlanner = (width: number, height: number) => { width: number; height: number; jpegQuality: number | null } | null;

/** A transcode's result: the stored bytes, or the input to decode the general way instead. */
export type TranscodeOutcome =
  | {
      bytes: Uint8Array;
      width: number;
      height: number;
      jpeg: boolean;
      /** Size of the source file read (the build's compression ratio). */ sourceBytes?: number;
    }
  | { fallback: ImageInput };

export function isRGBPixels(v: unknown): v is RGBPixels {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as RGBPixels).data instanceof Uint8Array &&
    Number.isInteger((v as RGBPixels).width) &&
    Number.isInteger((v as RGBPixels).height)
  );
}

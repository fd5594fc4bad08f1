import { isRGBPixels, type ImageInput, type TranscodeOutcome, type TranscodePlanner } from '../fields/image-codec.js';
import { threadCpuMs, transcodeJpeg } from '../native/writer-transcode.js';
import { endsWithEoi, EOI, parseJpegHeader } from './jpeg-header.js';
import { passThroughBlocker } from './pass-through.js';
import { MAX_INPUT_PIXELS } from './read-error.js';
import { readIntoScratch, sourceOf } from './source-file.js';

/** Stage timings of transcodeSource (the writer's `timings` option), thread CPU ms. */
export interface TranscodeClock {
  /** Images stored by the one-call path. */
  transcoded: number;
  readMs: number;
  /** decode, resize, encode */
  stages: Float64Array;
}

/**
 * RGBImageField's whole job for the common source JPEG in one native call (decode as
 * nativeJpegRGB, area resize, JPEG encode or raw; core/native/writer-transcode.ts): what
 * load → resizeArea → encodeJpeg give, byte for byte, without the full-size pixels ever
 * reaching JavaScript. `plan` gets the source size and says what to store, or null to
 * leave the image to the general path. Returns the stored bytes, or `{ fallback }`: the
 * input to hand to load() instead (the bytes already read, so the file is read once; a
 * file that cannot be read is left to load(), which reports why).
 */
export function transcodeSource(
  input: ImageInput,
  baseDir: string | undefined,
  plan: TranscodePlanner,
  clock?: TranscodeClock,
): TranscodeOutcome {
  if (isRGBPixels(input) || process.env.BETON_SOURCE_DECODER === 'sharp') return { fallback: input };
  const src = sourceOf(input, baseDir);
  let bytes: Uint8Array;
  const t0 = clock ? threadCpuMs() : null;
  try {
    bytes = src.bytes ?? readIntoScratch(src.path!, src.confined);
  } catch {
    return { fallback: input };
  }
  if (clock && t0 !== null) clock.readMs += threadCpuMs()! - t0;
  // The general path keeps the bytes it is handed, so they leave the scratch buffer.
  const fallback = (): TranscodeOutcome => ({ fallback: { file: src.bytes ?? Buffer.from(bytes), name: src.name } });
  const h = parseJpegHeader(bytes);
  if (h === null || h === 'short' || passThroughBlocker(h, null) !== null || h.width * h.height > MAX_INPUT_PIXELS) return fallback();
  const p = plan(h.width, h.height);
  if (!p) return fallback();
  // A file lacking only its final EOI marker decodes as decodeJpegSource's retry does it:
  // with one appended (a complete scan then decodes cleanly; a cut one still warns). Done
  // here rather than left to sharp, whose warning retries misfire when several encode
  // workers run libvips at once (its error state is process-wide).
  const data = endsWithEoi(bytes) ? bytes : Buffer.concat([bytes, EOI]);
  let out: Uint8Array | null;
  try {
    out = transcodeJpeg(data, h.width, h.height, p.width, p.height, p.jpegQuality, clock?.stages);
  } catch {
    out = null;
  }
  if (!out) return fallback();
  if (clock) clock.transcoded++;
  return { bytes: out, width: p.width, height: p.height, jpeg: p.jpegQuality !== null, sourceBytes: bytes.byteLength };
}

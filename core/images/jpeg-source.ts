import type { RGBPixels } from '../fields/image-codec.js';
import { jpegDecodeRGB, jpegInfo } from '../native/jpeg-codec.js';
import { jpegCheck } from '../native/writer-transcode.js';
import { libMessage } from './explain-failure.js';
import { endsWithEoi, EOI, parseJpegHeader } from './jpeg-header.js';
import { passThroughBlocker } from './pass-through.js';
import { MAX_INPUT_PIXELS } from './read-error.js';
import { sharpRGB } from './sharp-decode.js';

/**
 * The common JPEG (8-bit YCbCr or grey, no EXIF rotation, no ICC profile but sRGB, not an
 * MPO; one lacking only its final EOI marker gets it appended, as decodeJpegSource's retry
 * does) decoded by the addon's libjpeg-turbo in one synchronous call: the accurate IDCT with
 * fancy upsampling, as sharp/libvips and PIL decode it, so the pixels are the same (tested
 * against sharp), at a fraction of sharp's per-call cost. Anything else, and any warning
 * or error, returns null: sharp then decodes it, converting colours and reporting damage.
 */
export function nativeJpegRGB(buf: Uint8Array): RGBPixels | null {
  if (process.env.BETON_SOURCE_DECODER === 'sharp') return null;
  try {
    const h = parseJpegHeader(buf);
    if (h === null || h === 'short' || passThroughBlocker(h, null) !== null) return null;
    const info = jpegInfo(buf);
    if (info.colorSpace !== 'YCbCr' && info.colorSpace !== 'Grayscale') return null;
    if (info.width * info.height > MAX_INPUT_PIXELS) return null;
    const data = new Uint8Array(info.width * info.height * 3);
    // Missing only its EOI marker: decoded as decodeJpegSource's retry does (see transcodeSource).
    jpegDecodeRGB(endsWithEoi(buf) ? buf : Buffer.concat([buf, EOI]), data, { fastDct: false, strict: true });
    return { data, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

/** libjpeg warnings that mean pixels are missing (it would fill them with grey). */
const JPEG_DAMAGE = /premature end|Huffman|arithmetic code|instead of RST|data precision|Unsupported JPEG process/i;

/**
 * JPEG: libjpeg reports a cut-off scan as a warning and fills the rest with grey, so
 * warnings fail the decode. Harmless ones (stray bytes before a marker, odd JFIF
 * versions, …) retry without that check; a file lacking only its final EOI marker is
 * retried with one appended (a complete scan then decodes cleanly, a cut one does not).
 */
export async function decodeJpegSource(buf: Buffer): Promise<RGBPixels> {
  const fast = nativeJpegRGB(buf);
  if (fast) return fast;
  // Whether the file is whole is libjpeg's verdict, asked directly (jpegCheck): libvips'
  // warning handling is not thread-safe, and with several encode workers decoding through
  // sharp at once a worker's load could fail on another's warning, or lose its own (a
  // cut-off file then decoded to grey fill). sharp only converts the pixels.
  const h = parseJpegHeader(buf);
  const check = h === null || h === 'short' || h.width * h.height <= MAX_INPUT_PIXELS ? jpegCheck(buf) : null;
  if (check) {
    if (check.error) throw new Error(check.warning ? `${check.warning}; ${check.error}` : check.error);
    if (check.warnings > 0) {
      if (/premature end of JPEG (image|file)/i.test(check.warning) && !endsWithEoi(buf)) {
        const whole = Buffer.concat([buf, EOI]);
        const again = jpegCheck(whole);
        if (again && !again.error && again.warnings === 0) return await sharpRGB(whole, 'error');
        throw new Error(check.warning);
      }
      if (JPEG_DAMAGE.test(check.warning)) throw new Error(check.warning);
    }
    return await sharpRGB(buf, 'error');
  }
  // No check available (an addon built before jpegCheck) or too many pixels for it to be
  // worth it: sharp's own warnings decide, as they always did.
  try {
    return await sharpRGB(buf, 'warning');
  } catch (e) {
    const msg = libMessage(e);
    if (/premature end of JPEG (image|file)/i.test(msg) && !endsWithEoi(buf)) {
      try {
        return await sharpRGB(Buffer.concat([buf, EOI]), 'warning');
      } catch {
        throw e;
      }
    }
    if (JPEG_DAMAGE.test(msg) || /unsupported image format|exceeds pixel limit/i.test(msg)) throw e;
    return await sharpRGB(buf, 'error');
  }
}

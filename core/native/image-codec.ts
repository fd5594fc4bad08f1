import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type SharpConstructor from 'sharp';
import { BetonEncodeError } from '../format/errors.js';
import { isRGBPixels, type ImageCodec, type ImageInput, type RGBPixels, type TranscodeOutcome, type TranscodePlanner } from '../fields/image-codec.js';
import { jpegDecodeRGB, jpegInfo } from './index.js';
import { decodeJpeg, encodeJpeg, resizeArea } from './jpeg.js';
import { jpegCheck, threadCpuMs, transcodeJpeg } from './writer-transcode.js';

let sharpLoaded: Promise<typeof SharpConstructor> | undefined;

/**
 * sharp, loaded on first use: loading libvips costs ~0.3 s of CPU per thread, and the
 * common source JPEG never needs it (transcodeSource, nativeJpegRGB), so encode workers
 * that only see such files start without it.
 */
function getSharp(): Promise<typeof SharpConstructor> {
  sharpLoaded ??= import('sharp').then((m) => {
    // One libvips thread per call: parallelism comes from our worker pool, and libvips'
    // own threads would oversubscribe the cores.
    m.default.concurrency(1);
    m.default.cache(false);
    return m.default;
  });
  return sharpLoaded;
}

/** Largest source image decoded, in pixels (as sharp's limitInputPixels). */
const MAX_INPUT_PIXELS = 2 ** 28;

/** What to do about a file whose data is damaged. */
const FIX_DATA = 're-download or remove it, or build with --on-error skip';
/** What to do about an image too large to decode. */
const FIX_SIZE = 'shrink it or remove it, or build with --on-error skip';
/** What to do about a file in a format we cannot decode. */
const FIX_FORMAT = 'convert it to JPEG or PNG, or remove it, or build with --on-error skip';

/** A reason a source image cannot be read (becomes "cannot read image <file>: <reason>"). */
class ImageReadError extends Error {}
const unreadable = (what: string, fix: string): ImageReadError => new ImageReadError(`${what}; ${fix}`);

// ---------------------------------------------------------------------------
// Reading the source
// ---------------------------------------------------------------------------

interface Source {
  /** The path (resolved against baseDir) or the bytes' name, for messages. */
  name: string;
  path?: string;
  bytes?: Uint8Array;
}

function sourceOf(input: Exclude<ImageInput, RGBPixels>, baseDir?: string): Source {
  if (typeof input === 'string' || 'path' in input) {
    const p = typeof input === 'string' ? input : input.path;
    const path = baseDir && !isAbsolute(p) ? join(baseDir, p) : p;
    return { name: path, path };
  }
  return { name: input.name ?? '<bytes>', bytes: input.file };
}

function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOENT':
      return 'the file does not exist (moved or deleted since the folder was listed?); restore it, or build with --on-error skip';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; make it readable (chmod a+r) or remove it, or build with --on-error skip';
    case 'ELOOP':
      return 'the path is a symbolic link loop (a link that points back to itself); fix or remove the link, or build with --on-error skip';
    case 'EISDIR':
      return 'it is a directory, not an image file';
    default:
      return err.message;
  }
}

/*
 * Files are read with synchronous calls. Encoding runs one sample at a time per worker
 * thread, so nothing waits behind them, and each async fs call hops through the libuv
 * pool: reading a 70 KB JPEG measured ~30 µs synchronously against 300–700 µs with
 * fs/promises on a busy 2-core machine (it matters most for pass-through, ~20 µs of work).
 */

/**
 * Opens a file for reading without blocking on FIFOs (O_NONBLOCK) and refuses anything
 * that is not a regular file: reading a FIFO or a device named x.jpg would hang or never end.
 */
function openRegular(path: string): { fd: number; size: number } {
  const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : 'a device';
      throw new ImageReadError(`it is ${kind}, not a regular file; remove it from the image folder, or build with --on-error skip`);
    }
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function readRange(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new ImageReadError(`the file shrank while it was read; ${FIX_DATA}`);
    done += n;
  }
}

/** transcodeSource's read buffer, reused from file to file (per thread: a module instance each). */
let scratch = Buffer.allocUnsafeSlow(1 << 17);

/**
 * The file's bytes in `scratch` (grown as needed): valid until the next call. Saves a fresh
 * allocation per image (and the garbage collector's work freeing it), ~40% of a read's CPU.
 */
function readIntoScratch(path: string): Buffer {
  const { fd, size } = openRegular(path);
  try {
    if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
    const view = scratch.subarray(0, size);
    readRange(fd, view, 0);
    return view;
  } finally {
    closeSync(fd);
  }
}

function readWhole(path: string): Buffer {
  const { fd, size } = openRegular(path);
  try {
    const buf = Buffer.allocUnsafeSlow(size);
    readRange(fd, buf, 0);
    return buf;
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------
// Format sniffing and explanations
// ---------------------------------------------------------------------------

type Format = 'jpeg' | 'png' | 'gif' | 'webp' | 'tiff' | 'bmp' | 'pnm' | 'heif' | 'other';

const ascii = (b: Uint8Array, from: number, to: number): string => String.fromCharCode(...b.subarray(from, to));

function sniff(b: Uint8Array): Format {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && ascii(b, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (b.length >= 6 && /^GIF8[79]a$/.test(ascii(b, 0, 6))) return 'gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 4 && (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*')) return 'tiff';
  if (b.length >= 18 && b[0] === 0x42 && b[1] === 0x4d && [12, 40, 52, 56, 64, 108, 124].includes(b[14]! | (b[15]! << 8)) && b[16] === 0 && b[17] === 0) return 'bmp';
  if (b.length >= 4 && b[0] === 0x50 && b[1]! >= 0x31 && b[1]! <= 0x36 && /^\s+[#0-9]/.test(ascii(b, 2, Math.min(b.length, 64)))) return 'pnm';
  if (b.length >= 12 && ascii(b, 4, 8) === 'ftyp') return 'heif';
  return 'other';
}

/** Why bytes that no decoder recognised are not an image, in words. */
function notAnImage(b: Uint8Array): string {
  const head = Buffer.from(b.subarray(0, 512)).toString('utf8');
  const start = head.replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head')) {
    return 'the file is an HTML page, not an image (an error page saved by a failed download?)';
  }
  const kinds: Array<[string, string]> = [
    ['%PDF', 'a PDF document'],
    ['PK\x03\x04', 'a ZIP archive'],
    ['\x1f\x8b', 'a gzip archive'],
    ['8BPS', 'a Photoshop (PSD) file'],
    ['\xff\x0a', 'a JPEG XL image'],
    ['\0\0\0\x0cJXL ', 'a JPEG XL image'],
    ['\0\0\x01\0', 'a Windows icon (ICO)'],
  ];
  const bin = ascii(b, 0, Math.min(b.length, 12));
  for (const [magic, what] of kinds) if (bin.startsWith(magic)) return `the file is ${what}, not an image we can read`;
  const text = b.subarray(0, 512).every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c !== 127));
  if (text) {
    const quote = head.replace(/\s+/g, ' ').trim().slice(0, 40);
    return `the file is not an image: it holds text ("${quote}${head.length > 40 ? '…' : ''}")`;
  }
  const hex = Buffer.from(b.subarray(0, 8)).toString('hex').replace(/(..)/g, '$1 ').trim();
  return `the file is not an image in a format we can read (it starts with bytes ${hex}; readable: JPEG, PNG, WebP, TIFF, GIF, AVIF, BMP, PPM/PGM)`;
}

/** libvips' messages, without prefixes and repeats. */
function libMessage(e: unknown): string {
  const lines = (e instanceof Error ? e.message : String(e))
    .split('\n')
    .map((l) => l.replace(/^Input (buffer|file) has corrupt header: /, '').replace(/^(VipsJpeg|vipspng|VipsForeignLoad\w*|gifload|webp2vips|tiff2vips|heifload): /, '').trim())
    .filter((l) => l !== '' && !/^source: bad seek/.test(l));
  const text = [...new Set(lines)].join('; ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Whether a file's own structure shows it was cut short (cheap checks, no decoding). */
function cutShort(b: Uint8Array, format: Format): boolean {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (format) {
    case 'png':
      return !(b.length >= 12 && ascii(b, b.length - 8, b.length - 4) === 'IEND');
    case 'gif':
      return b[b.length - 1] !== 0x3b; // trailer
    case 'webp':
      return b.length < 12 || v.getUint32(4, true) + 8 > b.length;
    case 'tiff': {
      if (b.length < 8) return true;
      const ifd = v.getUint32(4, b[0] === 0x49);
      return ifd + 2 > b.length;
    }
    default:
      return false;
  }
}

/** Turns a decoder failure into what is wrong and what to do. */
async function explain(e: unknown, buf: Buffer, format: Format): Promise<ImageReadError> {
  if (e instanceof ImageReadError) return e;
  const msg = libMessage(e);
  const kind = { jpeg: 'JPEG', png: 'PNG', gif: 'GIF', webp: 'WebP', tiff: 'TIFF', heif: 'AVIF', bmp: 'BMP', pnm: 'PNM', other: 'image' }[format];
  if (format !== 'jpeg' && cutShort(buf, format)) return unreadable(`the file is truncated (the ${kind} data ends before the image is complete)`, FIX_DATA);
  if (/unsupported image format/i.test(msg)) {
    if (format === 'heif') return unreadable('HEIC/HEIF images are not supported (only AVIF)', FIX_FORMAT);
    if (format !== 'other') return unreadable(`the ${kind} data is corrupt or uses a variant that cannot be decoded`, FIX_DATA);
    const what = notAnImage(buf);
    return unreadable(what, /can read/.test(what) ? FIX_FORMAT : 'remove it, or build with --on-error skip');
  }
  if (/exceeds pixel limit/i.test(msg)) {
    const sharp = await getSharp();
    const m = await sharp(buf, { limitInputPixels: false }).metadata().catch(() => null);
    const size = m?.width && m.height ? `${m.width}x${m.height} = ${(m.width * m.height / 1e6).toFixed(0)} megapixels` : 'too many pixels';
    return unreadable(`the image is too large (${size}; the limit is ${(MAX_INPUT_PIXELS / 1e6).toFixed(0)} megapixels)`, FIX_SIZE);
  }
  if (format === 'jpeg') {
    if (/data precision (\d+)/i.test(msg)) {
      const bits = /data precision (\d+)/i.exec(msg)![1];
      return unreadable(`it is a ${bits}-bit JPEG; only 8-bit JPEGs can be decoded (libjpeg-turbo)`, 'convert it to an 8-bit JPEG or PNG, or remove it, or build with --on-error skip');
    }
    if (/Unsupported JPEG process/i.test(msg)) return unreadable(`it is a lossless or hierarchical JPEG, which libjpeg-turbo cannot decode (${msg})`, FIX_FORMAT);
    if (/premature end of JPEG (image|file)/i.test(msg)) return unreadable('the file is truncated (the JPEG data ends before the image is complete)', FIX_DATA);
    if (/premature end of data segment/i.test(msg)) return unreadable('the file is truncated or corrupt (the JPEG image data stops before the image is complete: "premature end of data segment")', FIX_DATA);
    return unreadable(`the JPEG data is corrupt (${msg})`, FIX_DATA);
  }
  if (/truncat|premature|unexpected end|end of (file|stream|data)|not enough data|short read|\beof\b/i.test(msg)) return unreadable(`the file is truncated (the ${kind} data ends before the image is complete: ${msg})`, FIX_DATA);
  return unreadable(`the ${kind} data is corrupt (${msg})`, FIX_DATA);
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

async function sharpRGB(buf: Buffer, failOn: 'warning' | 'error'): Promise<RGBPixels> {
  const sharp = await getSharp();
  const { data, info } = await sharp(buf, { failOn, limitInputPixels: MAX_INPUT_PIXELS })
    .rotate() // EXIF orientation
    .removeAlpha()
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new ImageReadError(`decoded to ${info.channels} channels, expected 3`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

const EOI = Buffer.from([0xff, 0xd9]);
const endsWithEoi = (b: Uint8Array): boolean => b.length >= 2 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;

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
async function decodeJpegSource(buf: Buffer): Promise<RGBPixels> {
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

async function decodeBuffer(buf: Buffer): Promise<RGBPixels> {
  if (buf.byteLength === 0) throw unreadable('the file is empty (0 bytes)', FIX_DATA);
  const format = sniff(buf);
  try {
    switch (format) {
      case 'jpeg':
        return await decodeJpegSource(buf);
      case 'bmp':
        return decodeBmp(buf);
      case 'pnm':
        return decodePnm(buf);
      default:
        return await sharpRGB(buf, 'error');
    }
  } catch (e) {
    throw await explain(e, buf, format);
  }
}

/**
 * Reads any image sharp can (JPEG, PNG, WebP, TIFF, GIF first frame, AVIF) or BMP/PPM/PGM
 * into 8-bit RGB. EXIF orientation is applied, so pixels are what users see. Alpha is
 * dropped, as PIL's convert('RGB') does (torchvision's loader): RGB values are kept, not
 * composited. 16-bit samples keep their high byte (v >> 8). CMYK/YCCK and ICC-tagged
 * images are converted to sRGB with their profile. Truncated or corrupt files fail with
 * a message naming the file, the problem and the fix. See docs/images.md.
 */
export async function loadRGB(input: ImageInput, baseDir?: string): Promise<RGBPixels> {
  if (isRGBPixels(input)) return input;
  const src = sourceOf(input, baseDir);
  try {
    const buf = src.bytes ? Buffer.from(src.bytes.buffer, src.bytes.byteOffset, src.bytes.byteLength) : readWhole(src.path!);
    // The encoded size goes into the build report: without it the compression ratio has no sources to compare.
    return { ...(await decodeBuffer(buf)), sourceBytes: buf.byteLength };
  } catch (e) {
    const why = e instanceof ImageReadError ? e.message : fsReason(e);
    throw new BetonEncodeError('BAD_VALUE', `cannot read image ${src.name}: ${why}`, { source: src.name });
  }
}

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
export function transcodeSource(input: ImageInput, baseDir: string | undefined, plan: TranscodePlanner, clock?: TranscodeClock): TranscodeOutcome {
  if (isRGBPixels(input) || process.env.BETON_SOURCE_DECODER === 'sharp') return { fallback: input };
  const src = sourceOf(input, baseDir);
  let bytes: Uint8Array;
  const t0 = clock ? threadCpuMs() : null;
  try {
    bytes = src.bytes ?? readIntoScratch(src.path!);
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

// ---------------------------------------------------------------------------
// BMP and PNM (torchvision's ImageFolder lists .bmp/.ppm/.pgm; libvips has no loader)
// ---------------------------------------------------------------------------

function checkSize(width: number, height: number, kind: string): void {
  if (!(width >= 1 && height >= 1)) throw new ImageReadError(`the ${kind} header is corrupt (size ${width}x${height}); ${FIX_DATA}`);
  if (width * height > MAX_INPUT_PIXELS) {
    throw unreadable(`the image is too large (${width}x${height}; the limit is ${(MAX_INPUT_PIXELS / 1e6).toFixed(0)} megapixels)`, FIX_SIZE);
  }
}

const truncatedAs = (kind: string): ImageReadError => unreadable(`the file is truncated (the ${kind} data ends before the image is complete)`, FIX_DATA);

/** Scales a bit-field value of `bits` bits to 0..255. */
const scaleTo8 = (v: number, max: number): number => (max === 255 ? v : Math.round((v * 255) / max));

/** Windows BMP: 1/4/8-bit palette (also RLE4/RLE8), 16/32-bit bit fields, 24/32-bit BGR. */
export function decodeBmp(b: Uint8Array): RGBPixels {
  if (b.length < 26) throw truncatedAs('BMP');
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const dataOff = v.getUint32(10, true);
  const hs = v.getUint32(14, true);
  let width: number, height: number, bpp: number, comp: number, colours: number, palEntry: number;
  if (hs === 12) {
    width = v.getUint16(18, true);
    height = v.getInt16(20, true);
    bpp = v.getUint16(24, true);
    comp = 0;
    colours = 0;
    palEntry = 3;
  } else if (hs >= 40 && hs <= 124) {
    if (b.length < 14 + 40) throw truncatedAs('BMP');
    width = v.getInt32(18, true);
    height = v.getInt32(22, true);
    bpp = v.getUint16(28, true);
    comp = v.getUint32(30, true);
    colours = v.getUint32(46, true);
    palEntry = 4;
  } else {
    throw unreadable(`the BMP header is of an unknown kind (${hs} bytes)`, FIX_FORMAT);
  }
  const topDown = height < 0;
  height = Math.abs(height);
  checkSize(width, height, 'BMP');
  if (comp === 4 || comp === 5) throw unreadable(`the BMP holds an embedded ${comp === 4 ? 'JPEG' : 'PNG'}, which is not supported`, FIX_FORMAT);
  const rle = comp === 1 || comp === 2;
  const fields = comp === 3 || comp === 6;
  if (!(comp === 0 || (comp === 1 && bpp === 8) || (comp === 2 && bpp === 4) || (fields && (bpp === 16 || bpp === 32)))) {
    throw unreadable(`the BMP uses compression ${comp} with ${bpp} bits per pixel, which is not supported`, FIX_FORMAT);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw unreadable(`the BMP has ${bpp} bits per pixel, which is not supported`, FIX_FORMAT);
  let masks = bpp === 16 ? [0x7c00, 0x03e0, 0x001f] : [0xff0000, 0xff00, 0xff];
  let palOff = 14 + hs;
  if (fields) {
    const at = 54; // right after a 40-byte header, or inside a V2+ header: the same offset
    if (b.length < at + 12) throw truncatedAs('BMP');
    masks = [v.getUint32(at, true), v.getUint32(at + 4, true), v.getUint32(at + 8, true)];
    if (hs === 40) palOff += comp === 6 ? 16 : 12;
  }
  const palette: number[] = [];
  if (bpp <= 8) {
    const n = colours > 0 && colours <= 1 << bpp ? colours : 1 << bpp;
    for (let i = 0; i < n; i++) {
      const at = palOff + i * palEntry;
      if (at + 3 > b.length || at + 3 > dataOff) break;
      palette.push(b[at + 2]!, b[at + 1]!, b[at]!);
    }
  }
  const out = new Uint8Array(width * height * 3);
  const putIndex = (x: number, row: number, idx: number): void => {
    const o = (row * width + x) * 3;
    if (idx * 3 + 2 < palette.length) {
      out[o] = palette[idx * 3]!;
      out[o + 1] = palette[idx * 3 + 1]!;
      out[o + 2] = palette[idx * 3 + 2]!;
    }
  };
  if (rle) {
    // RLE bitmaps are bottom-up; pixels the stream skips keep palette entry 0's colour.
    for (let i = 0; i < width * height; i++) putIndex(i % width, Math.floor(i / width), 0);
    let p = dataOff;
    let x = 0;
    let y = height - 1;
    const need = (n: number): void => {
      if (p + n > b.length) throw truncatedAs('BMP');
    };
    const put = (idx: number): void => {
      if (x < width && y >= 0) putIndex(x, y, idx);
      x++;
    };
    for (;;) {
      need(2);
      const n = b[p]!;
      const c = b[p + 1]!;
      p += 2;
      if (n > 0) {
        for (let i = 0; i < n; i++) put(bpp === 8 ? c : i % 2 === 0 ? c >> 4 : c & 15);
      } else if (c === 0) {
        x = 0;
        y--;
      } else if (c === 1) {
        break;
      } else if (c === 2) {
        need(2);
        x += b[p]!;
        y -= b[p + 1]!;
        p += 2;
      } else {
        const bytes = bpp === 8 ? c : Math.ceil(c / 2);
        need(bytes);
        for (let i = 0; i < c; i++) put(bpp === 8 ? b[p + i]! : i % 2 === 0 ? b[p + (i >> 1)]! >> 4 : b[p + (i >> 1)]! & 15);
        p += bytes + (bytes % 2);
      }
      if (y < 0) break;
    }
    return { data: out, width, height };
  }
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (dataOff + stride * (height - 1) + Math.ceil((bpp * width) / 8) > b.length) throw truncatedAs('BMP');
  const shifts = masks.map((m) => (m === 0 ? 0 : 31 - Math.clz32(m & -m)));
  const maxes = masks.map((m, i) => (m >>> shifts[i]!) >>> 0);
  for (let y = 0; y < height; y++) {
    const row = dataOff + (topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      if (bpp <= 8) {
        const bit = x * bpp;
        putIndex(x, y, (b[row + (bit >> 3)]! >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1));
      } else if (bpp === 24) {
        const at = row + x * 3;
        out[o] = b[at + 2]!;
        out[o + 1] = b[at + 1]!;
        out[o + 2] = b[at]!;
      } else {
        const px = bpp === 16 ? v.getUint16(row + x * 2, true) : v.getUint32(row + x * 4, true);
        for (let c = 0; c < 3; c++) out[o + c] = maxes[c] ? scaleTo8(((px & masks[c]!) >>> shifts[c]!) >>> 0, maxes[c]!) : 0;
      }
    }
  }
  return { data: out, width, height };
}

/** Netpbm P1–P6 (PBM/PGM/PPM, ASCII or binary, maxval up to 65535). */
export function decodePnm(b: Uint8Array): RGBPixels {
  const kind = b[1]! - 0x30;
  let p = 2;
  const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
  const skip = (): void => {
    for (;;) {
      while (p < b.length && isSpace(b[p]!)) p++;
      if (b[p] !== 0x23) return; // '#'
      while (p < b.length && b[p] !== 10 && b[p] !== 13) p++;
    }
  };
  const int = (): number => {
    skip();
    const s = p;
    while (p < b.length && b[p]! >= 0x30 && b[p]! <= 0x39) p++;
    if (s === p) throw p >= b.length ? truncatedAs('PNM') : unreadable('the PNM header is corrupt', FIX_DATA);
    return Number(ascii(b, s, p));
  };
  const width = int();
  const height = int();
  const bitmap = kind === 1 || kind === 4;
  const maxval = bitmap ? 1 : int();
  checkSize(width, height, 'PNM');
  if (!(maxval >= 1 && maxval <= 65535)) throw unreadable(`the PNM maxval ${maxval} is outside 1..65535`, FIX_DATA);
  const ch = kind === 3 || kind === 6 ? 3 : 1;
  const n = width * height * ch;
  const samples = new Uint16Array(n);
  if (kind <= 3) {
    for (let i = 0; i < n; i++) {
      if (kind === 1) {
        skip();
        if (p >= b.length) throw truncatedAs('PBM');
        samples[i] = b[p++] === 0x31 ? 1 : 0;
      } else samples[i] = int();
    }
  } else {
    p++; // the single whitespace after the header
    if (kind === 4) {
      const stride = Math.ceil(width / 8);
      if (p + stride * height > b.length) throw truncatedAs('PBM');
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) samples[y * width + x] = (b[p + y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1;
    } else {
      const wide = maxval > 255;
      if (p + n * (wide ? 2 : 1) > b.length) throw truncatedAs(kind === 5 ? 'PGM' : 'PPM');
      for (let i = 0; i < n; i++) samples[i] = wide ? (b[p + 2 * i]! << 8) | b[p + 2 * i + 1]! : b[p + i]!;
    }
  }
  const to8 = (s: number): number => (bitmap ? (s ? 0 : 255) : maxval === 65535 ? s >> 8 : scaleTo8(Math.min(s, maxval), maxval));
  const out = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    for (let c = 0; c < 3; c++) out[i * 3 + c] = to8(samples[ch === 3 ? i * 3 + c : i]!);
  }
  return { data: out, width, height };
}

// ---------------------------------------------------------------------------
// JPEG pass-through
// ---------------------------------------------------------------------------

/** What the markers before a JPEG's first scan say (no decoding). */
export interface JpegHeader {
  /** Start-of-frame marker (0xc0 baseline, 0xc1 extended, 0xc2 progressive, …). */
  sof: number;
  precision: number;
  width: number;
  height: number;
  components: number;
  /** EXIF orientation from the Exif APP1 segment(s): 1 when none; null when unparseable. */
  orientations: Array<number | null>;
  /** The embedded ICC profile (chunks joined), or null. */
  icc: Uint8Array | null;
  /** A Multi-Picture Format (MPO) index: more images follow the first. */
  mpf: boolean;
}

/**
 * Walks a JPEG's marker segments up to its first SOS. Returns 'short' when the bytes end
 * before that (read more), null when they are not a well-formed JPEG header.
 */
export function parseJpegHeader(b: Uint8Array): JpegHeader | 'short' | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frame: Pick<JpegHeader, 'sof' | 'precision' | 'width' | 'height' | 'components'> | null = null;
  const orientations: Array<number | null> = [];
  const iccChunks: Array<{ seq: number; data: Uint8Array }> = [];
  let mpf = false;
  let p = 2;
  for (;;) {
    if (p + 2 > b.length) return 'short';
    if (b[p] !== 0xff) return null;
    const m = b[p + 1]!;
    if (m === 0xff) {
      p++; // fill byte
      continue;
    }
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) {
      p += 2;
      continue;
    }
    if (m === 0xd8 || m === 0xd9) return null; // SOI/EOI before any scan
    if (p + 4 > b.length) return 'short';
    const len = v.getUint16(p + 2);
    if (len < 2) return null;
    if (m === 0xda) {
      if (!frame) return null;
      return { ...frame, orientations, icc: joinIcc(iccChunks), mpf };
    }
    const end = p + 2 + len;
    if (end > b.length) return 'short';
    const body = b.subarray(p + 4, end);
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      if (frame || body.length < 6) return null;
      frame = { sof: m, precision: body[0]!, height: (body[1]! << 8) | body[2]!, width: (body[3]! << 8) | body[4]!, components: body[5]! };
    } else if (m === 0xe1 && body.length >= 6 && ascii(body, 0, 6) === 'Exif\0\0') {
      orientations.push(exifOrientation(body.subarray(6)));
    } else if (m === 0xe2 && body.length >= 14 && ascii(body, 0, 12) === 'ICC_PROFILE\0') {
      iccChunks.push({ seq: body[12]!, data: body.subarray(14) });
    } else if (m === 0xe2 && body.length >= 4 && ascii(body, 0, 4) === 'MPF\0') {
      mpf = true;
    }
    p = end;
  }
}

function joinIcc(chunks: Array<{ seq: number; data: Uint8Array }>): Uint8Array | null {
  if (chunks.length === 0) return null;
  return Buffer.concat(chunks.sort((a, b) => a.seq - b.seq).map((c) => c.data));
}

/**
 * EXIF orientation (tag 0x0112 in IFD0) from a TIFF structure (an Exif APP1 segment after
 * its "Exif\0\0"): the value, 1 when the tag is absent, null when the data is malformed.
 */
export function exifOrientation(tiff: Uint8Array): number | null {
  if (tiff.length < 8) return null;
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const v = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  if (v.getUint16(2, le) !== 42) return null;
  const ifd = v.getUint32(4, le);
  if (ifd < 8 || ifd + 2 > tiff.length) return null;
  const n = v.getUint16(ifd, le);
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > tiff.length) return null;
    if (v.getUint16(e, le) !== 0x0112) continue;
    const type = v.getUint16(e + 2, le);
    if (type === 3 || type === 8) return v.getUint16(e + 8, le); // SHORT (SSHORT)
    if (type === 4 || type === 9) return v.getUint32(e + 8, le); // LONG, seen in the wild
    return null;
  }
  return 1;
}

/** An ICC profile's description ('desc' tag, v2 text or v4 'mluc'), or null. */
export function iccDescription(icc: Uint8Array): string | null {
  if (icc.length < 132) return null;
  const v = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = v.getUint32(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= icc.length; i++) {
    const t = 132 + i * 12;
    if (ascii(icc, t, t + 4) !== 'desc') continue;
    const off = v.getUint32(t + 4);
    const size = v.getUint32(t + 8);
    if (off + Math.min(size, 16) > icc.length || off + 12 > icc.length) return null;
    const type = ascii(icc, off, off + 4);
    if (type === 'desc') {
      const n = v.getUint32(off + 8);
      if (off + 12 + n > icc.length) return null;
      return ascii(icc, off + 12, off + 12 + n).replace(/\0+$/, '');
    }
    if (type === 'mluc' && off + 28 <= icc.length) {
      const len = v.getUint32(off + 20);
      const at = off + v.getUint32(off + 24);
      if (at + len > icc.length) return null;
      return Buffer.from(icc.subarray(at, at + len)).swap16().toString('utf16le');
    }
    return null;
  }
  return null;
}

/** Why a JPEG header cannot be stored unchanged, or null when it can. */
function passThroughBlocker(h: JpegHeader, maxResolution: number | null): string | null {
  if (h.sof !== 0xc0 && h.sof !== 0xc1 && h.sof !== 0xc2) return `SOF 0x${h.sof.toString(16)} (not baseline/progressive Huffman)`;
  if (h.precision !== 8) return `${h.precision}-bit samples`;
  if (h.components !== 1 && h.components !== 3) return `${h.components} components`;
  if (h.width < 1 || h.height < 1) return 'no size in the frame header';
  if (h.orientations.some((o) => o !== 1)) return 'EXIF orientation';
  if (h.icc && !/sRGB/i.test(iccDescription(h.icc) ?? '')) return 'a non-sRGB ICC profile';
  if (h.mpf) return 'a multi-picture (MPO) file';
  if (maxResolution && Math.max(h.width, h.height) > maxResolution) return 'needs a resize';
  return null;
}

/**
 * Bytes read first: the whole file for most dataset JPEGs, else enough for the header
 * (longer headers, with big EXIF thumbnails or ICC profiles, are parsed from the whole file).
 */
const HEAD_BYTES = 128 * 1024;

/**
 * The source file's bytes when they can be stored in the dataset unchanged (a JPEG
 * FFCV decodes to what loadRGB would give, needing no resize), else null; the caller
 * then decodes and re-encodes. Conditions: a file path or file bytes (not pixels);
 * a baseline/extended/progressive Huffman JPEG with 8-bit samples whose colour space
 * (as libjpeg decides it) is YCbCr or Grayscale; EXIF orientation 1 or none; no ICC
 * profile other than sRGB (loadRGB would convert the colours); not an MPO; max(w,h) <=
 * maxResolution (when set); the file ends with an EOI marker. Reads only the header
 * (and, when eligible, the file); never decodes pixels, never throws: any problem
 * gives null and the normal path reports it.
 *
 * Not detected: a file cut inside its scan and then re-terminated with an EOI marker.
 */
export async function probePassThrough(
  input: ImageInput,
  baseDir: string | undefined,
  maxResolution: number | null,
): Promise<{ bytes: Uint8Array; width: number; height: number } | null> {
  if (isRGBPixels(input)) return null;
  const src = sourceOf(input, baseDir);
  try {
    let bytes: Uint8Array;
    let header: JpegHeader | 'short' | null;
    if (src.bytes) {
      bytes = src.bytes;
      header = parseJpegHeader(bytes);
    } else {
      const { fd, size } = openRegular(src.path!);
      try {
        const head = new Uint8Array(Math.min(size, HEAD_BYTES));
        readRange(fd, head, 0);
        header = parseJpegHeader(head);
        if (header === null || (header !== 'short' && passThroughBlocker(header, maxResolution) !== null)) return null;
        if (head.length === size) {
          bytes = head; // the whole file (most JPEGs in datasets)
        } else {
          const tail = new Uint8Array(2);
          readRange(fd, tail, size - 2);
          if (!endsWithEoi(tail)) return null;
          bytes = new Uint8Array(size);
          bytes.set(head, 0);
          readRange(fd, bytes.subarray(head.length), head.length);
        }
      } finally {
        closeSync(fd);
      }
      if (header === 'short') header = parseJpegHeader(bytes);
    }
    if (header === null || header === 'short' || passThroughBlocker(header, maxResolution) !== null) return null;
    if (!endsWithEoi(bytes)) return null;
    // libjpeg's own reading of the header (as FFCV's decoder will see it): colour space
    // from JFIF/Adobe markers and component ids, and a header it accepts at all.
    const info = jpegInfo(bytes);
    if (info.colorSpace !== 'YCbCr' && info.colorSpace !== 'Grayscale') return null;
    if (info.width !== header.width || info.height !== header.height) return null;
    // A scan cut short and re-terminated passes every cheap check; only decoding finds it.
    // A strict fast-DCT decode (~1 ms at 500x375) still costs far less than decode +
    // re-encode, and a stored sample must never decode to grey fill.
    jpegDecodeRGB(bytes, undefined, { fastDct: true, strict: true });
    return { bytes, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

let codec: ImageCodec | null = null;
export function nodeImageCodec(): ImageCodec {
  codec ??= { load: loadRGB, resizeArea, encodeJpeg, decodeJpeg, probePassThrough, transcode: transcodeSource };
  return codec;
}

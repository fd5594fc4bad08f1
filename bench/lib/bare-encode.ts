import { cappedSize, type WriteMode } from '../../core/index.js';
import { loadRGB } from '../../core/images/load-rgb.js';
import { probePassThrough } from '../../core/images/pass-through.js';
import { encodeJpeg, resizeArea } from '../../core/native/jpeg.js';

export interface EncodeSettings {
  mode: WriteMode;
  /** Longer-side cap; null = store at source size (no resize step). */
  maxResolution: number | null;
  jpegQuality: number;
  /** Bytes (h·w·3 after resizing) above which 'smart' stores JPEG. */
  smartThreshold: number;
}

export interface BareEncodeResult {
  images: number;
  elapsedMs: number;
  imagesPerSec: number;
  /** Mean milliseconds per image of each step (decode includes reading the file). */
  msPerImage: { decode: number; resize: number; encode: number };
  mix: { raw: number; jpg: number };
}

/**
 * The work RGBImageField.encode does per image, done inline on one thread with no writer
 * around it: read + decode (loadRGB: the addon's libjpeg-turbo for common JPEGs, sharp for
 * the rest), INTER_AREA resize to the cap, and the JPEG encode where
 * the mode stores JPEG. Its images/s is the most one encode worker can deliver, so the
 * writer's samples/s divided by it shows what the pool, messaging and page writing cost.
 * It mirrors the field's steps rather than calling field.encode so that each step can be
 * timed on its own; keep the two in step if the field changes.
 */
export async function bareEncode(paths: readonly string[], s: EncodeSettings): Promise<BareEncodeResult> {
  let decodeMs = 0;
  let resizeMs = 0;
  let encodeMs = 0;
  const mix = { raw: 0, jpg: 0 };
  // Keeps the encoded bytes observable so the JIT cannot treat the encode as dead code.
  let sink = 0;
  const t0 = performance.now();
  for (const path of paths) {
    const a = performance.now();
    let px = await loadRGB(path);
    const b = performance.now();
    const [w, h] = cappedSize(px.width, px.height, s.maxResolution);
    if (w !== px.width || h !== px.height) px = resizeArea(px, w, h);
    const c = performance.now();
    if (storesJpeg(s, w, h)) {
      sink += encodeJpeg(px, s.jpegQuality).byteLength;
      mix.jpg++;
    } else {
      sink += px.data.byteLength;
      mix.raw++;
    }
    const d = performance.now();
    decodeMs += b - a;
    resizeMs += c - b;
    encodeMs += d - c;
  }
  const elapsedMs = performance.now() - t0;
  if (sink < 0) throw new Error('unreachable');
  const n = paths.length;
  return {
    images: n,
    elapsedMs,
    imagesPerSec: n / (elapsedMs / 1000),
    msPerImage: { decode: decodeMs / n, resize: resizeMs / n, encode: encodeMs / n },
    mix,
  };
}

/** The field's choice for the modes benchmarked here ('proportion' is random; not timed). */
export function storesJpeg(s: EncodeSettings, width: number, height: number): boolean {
  switch (s.mode) {
    case 'raw':
      return false;
    case 'jpg':
      return true;
    case 'smart':
      // As FFCV: the raw byte count after resizing, compared with the threshold.
      return width * height * 3 > s.smartThreshold;
    case 'proportion':
      throw new Error("bare encode does not model 'proportion' (its choice is a random draw)");
  }
}

export interface BareProbeResult {
  images: number;
  elapsedMs: number;
  imagesPerSec: number;
  /** Sources the probe accepted (stored unchanged by a pass-through writer). */
  passed: number;
}

/**
 * What RGBImageField does per image with passThrough on, where the source qualifies:
 * probePassThrough (read the file, walk the markers, libjpeg header, one strict fast-DCT
 * decode), inline on one thread, no writer. The ceiling of one encode worker in that mode.
 * A source the probe refuses would also be decoded and re-encoded by the field; that
 * work is not done here (the benchmark checks that every source qualifies).
 */
export async function bareProbe(paths: readonly string[], maxResolution: number | null): Promise<BareProbeResult> {
  let passed = 0;
  let sink = 0;
  const t0 = performance.now();
  for (const path of paths) {
    const r = await probePassThrough(path, undefined, maxResolution);
    if (r) {
      passed++;
      sink += r.bytes.byteLength;
    }
  }
  const elapsedMs = performance.now() - t0;
  if (sink < 0) throw new Error('unreachable');
  return { images: paths.length, elapsedMs, imagesPerSec: paths.length / (elapsedMs / 1000), passed };
}

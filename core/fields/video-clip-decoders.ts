import { BetonFormatError } from '../format/errors.js';
import { randomResizedCrop, type Crop } from '../pipeline/crop.js';
import type { Rng } from '../pipeline/rng.js';
import type { ClipDecoderSpec, ClipTemporal } from '../pipeline/spec.js';
import { PipelineError } from '../pipeline/stage.js';
import type { Field } from './field.js';
import type { DecodeKernels, Decoder, DecoderStep, FieldStats, FieldTable } from './field-type.js';
import { CLIP_MODE_JPG, CLIP_MODE_RAW, clipFrameRanges, readClipHeader, VideoClipField } from './video-clip-field.js';

/** Whole-file facts about a video_clip field (the loader plans the batch slot with them). */
export interface ClipStats {
  minFrames: number;
  maxFrames: number;
  minWidth: number;
  maxWidth: number;
  minHeight: number;
  maxHeight: number;
}

/** Scans the field's metadata (no heap reads): clip lengths and frame sizes. */
export function clipStats(t: FieldTable): ClipStats {
  const s: ClipStats = { minFrames: Infinity, maxFrames: 0, minWidth: Infinity, maxWidth: 0, minHeight: Infinity, maxHeight: 0 };
  for (let i = 0; i < t.numSamples; i++) {
    const h = readClipHeader(t.member(i));
    s.minFrames = Math.min(s.minFrames, h.count);
    s.maxFrames = Math.max(s.maxFrames, h.count);
    s.minWidth = Math.min(s.minWidth, h.width);
    s.maxWidth = Math.max(s.maxWidth, h.width);
    s.minHeight = Math.min(s.minHeight, h.height);
    s.maxHeight = Math.max(s.maxHeight, h.height);
  }
  if (s.maxFrames === 0) s.minFrames = s.minWidth = s.minHeight = 0;
  return s;
}

/** Output frames T for a stored clip length and a temporal sub-sampling. */
export function outputFrames(stored: number, temporal: ClipTemporal | undefined): number {
  if (!temporal) return stored;
  if (temporal.mode === 'every') return Math.ceil(stored / temporal.k);
  return temporal.length;
}

/**
 * The stored frame each output frame comes from. Clips shorter than needed repeat their
 * last frame. A random window takes one draw per clip.
 */
export function pickFrames(stored: number, T: number, temporal: ClipTemporal | undefined, rng: Rng): number[] {
  let start = 0;
  let step = 1;
  if (temporal?.mode === 'every') step = temporal.k;
  else if (temporal?.mode === 'random_window' && stored > temporal.length) start = rng.int(stored - temporal.length + 1);
  return Array.from({ length: T }, (_, t) => Math.min(start + t * step, stored - 1));
}

/** Mirrors every frame of a (T, H, W, 3) clip left-right, in place. */
export function flipClip(d: Uint8Array, T: number, H: number, W: number): void {
  for (let row = 0; row < T * H; row++) {
    const base = row * W * 3;
    for (let a = 0, b = W - 1; a < b; a++, b--) {
      const i = base + a * 3;
      const j = base + b * 3;
      for (let c = 0; c < 3; c++) {
        const t = d[i + c]!;
        d[i + c] = d[j + c]!;
        d[j + c] = t;
      }
    }
  }
}

/**
 * Fills the T output frames of `out` (`frameBytes` each) from the stored frames `picks`
 * names; a frame picked twice in a row is copied rather than decoded again.
 */
function fillFrames(
  out: Uint8Array,
  frameBytes: number,
  picks: readonly number[],
  heap: Uint8Array,
  count: number,
  decodeFrame: (stored: Uint8Array, dst: Uint8Array) => void,
): void {
  const ranges = clipFrameRanges(heap, count);
  picks.forEach((pick, t) => {
    if (t > 0 && pick === picks[t - 1]) return void out.copyWithin(t * frameBytes, (t - 1) * frameBytes, t * frameBytes);
    const [a, b] = ranges[pick]!;
    decodeFrame(heap.subarray(a, b), out.subarray(t * frameBytes, (t + 1) * frameBytes));
  });
}

/** The stored frame mode, raw (true) or JPEG (false); anything else is a corrupt clip. */
function isRawMode(mode: number): boolean {
  if (mode !== CLIP_MODE_RAW && mode !== CLIP_MODE_JPG)
    throw new BetonFormatError(
      'CORRUPT_DATA',
      `clip mode ${mode} is neither 0 (jpg) nor 1 (raw): the clip's header is damaged; rebuild the file`,
    );
  return mode === CLIP_MODE_RAW;
}

function checkOptions(spec: ClipDecoderSpec, storedFrames: number): void {
  const t = spec.temporal;
  if (t?.mode === 'every' && !(Number.isInteger(t.k) && t.k >= 1))
    throw new PipelineError('BAD_PIPELINE', `${spec.decoder}: temporal every k needs an integer k >= 1, got ${t.k}`);
  if (t?.mode === 'random_window' && !(Number.isInteger(t.length) && t.length >= 1))
    throw new PipelineError('BAD_PIPELINE', `${spec.decoder}: a random window needs an integer length >= 1, got ${t.length}`);
  if (t && t.mode !== 'every' && t.mode !== 'random_window')
    throw new PipelineError('BAD_PIPELINE', `${spec.decoder}: temporal mode must be "every" or "random_window"`);
  const p = spec.flip ?? 0;
  if (!(p >= 0 && p <= 1)) throw new PipelineError('BAD_PIPELINE', `${spec.decoder}: flip is a probability in [0, 1], got ${p}`);
  if (!(Number.isInteger(storedFrames) && storedFrames >= 1)) {
    throw new PipelineError(
      'BAD_PIPELINE',
      `${spec.decoder}: the clip length to plan for is unknown (the file has no clips, or the loader gave no clip statistics); give frames: T`,
    );
  }
}

/** Decoders for video_clip fields: (T, H, W, 3) uint8 into the batch slot; `stats.clip` from clipStats. */
export function createClipDecoder(step: DecoderStep, field: Field, stats: FieldStats, kernels: DecodeKernels): Decoder {
  const spec = step as ClipDecoderSpec;
  const cs = stats.clip as ClipStats | undefined;
  const declared = field instanceof VideoClipField ? (field.frames ?? undefined) : undefined;
  const stored = spec.frames ?? cs?.maxFrames ?? declared ?? 0;
  checkOptions(spec, stored);
  const T = outputFrames(stored, spec.temporal);
  const flipP = spec.flip ?? 0;

  if (spec.decoder === 'clip_simple') {
    let size = spec.size;
    if (!size && cs) {
      if (cs.minWidth !== cs.maxWidth || cs.minHeight !== cs.maxHeight) {
        throw new PipelineError(
          'UNSUPPORTED_INPUT',
          `ClipSimpleDecoder needs frames of one size, but they range from ${cs.minWidth}x${cs.minHeight} to ${cs.maxWidth}x${cs.maxHeight}; use ClipRandomResizedCropDecoder`,
        );
      }
      size = [cs.maxHeight, cs.maxWidth];
    }
    if (!size)
      throw new PipelineError(
        'BAD_PIPELINE',
        'ClipSimpleDecoder: the frame size is unknown (no clip statistics from the loader); give size: [H, W]',
      );
    const [H, W] = size;
    const fb = H * W * 3;
    return {
      output: { shape: [T, H, W, 3], dtype: 'uint8' },
      decode: (meta, heap, d, rng) => {
        const h = readClipHeader(meta);
        if (h.width !== W || h.height !== H)
          throw new PipelineError(
            'UNSUPPORTED_INPUT',
            `clip frames are ${h.width}x${h.height}, the decoder was planned for ${W}x${H}; use ClipRandomResizedCropDecoder for clips of several sizes`,
          );
        const picks = pickFrames(h.count, T, spec.temporal, rng);
        const flip = flipP > 0 && rng.next() < flipP;
        const out = d as Uint8Array;
        const raw = isRawMode(h.mode);
        fillFrames(out, fb, picks, heap!, h.count, (src, dst) => (raw ? dst.set(src) : kernels.decodeJpegInto(src, dst, W, H)));
        if (flip) flipClip(out, T, H, W);
      },
    };
  }

  const [outH, outW] = spec.size;
  const fb = outH * outW * 3;
  const resizer = kernels.cropResizer();
  return {
    output: { shape: [T, outH, outW, 3], dtype: 'uint8' },
    decode: (meta, heap, d, rng) => {
      const h = readClipHeader(meta);
      const picks = pickFrames(h.count, T, spec.temporal, rng);
      const crop: Crop = randomResizedCrop(h.height, h.width, spec.scale, spec.ratio, rng);
      const flip = flipP > 0 && rng.next() < flipP;
      const rect = { x: crop.x, y: crop.y, w: crop.w, h: crop.h };
      const out = d as Uint8Array;
      const raw = isRawMode(h.mode);
      fillFrames(out, fb, picks, heap!, h.count, (src, dst) => resizer.run(raw, src, h.width, h.height, rect, outW, outH, dst));
      if (flip) flipClip(out, T, outH, outW);
    },
  };
}

import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { TypedField, type DecodeContext, type EncodeContext, type EncodedValue, type FieldIdentity, type FieldSpec } from './field.js';
import type { ImageCodec, RGBPixels } from './image-codec.js';
import { customArguments, CUSTOM_TYPE_ID } from './custom-arguments.js';
import { cappedSize } from './rgb-image-field.js';
import { FIELD_TYPE } from '../api/constants.js';

/**
 * VideoClipField: a clip of T frames per sample (FFCV never shipped one; the FFCV paper's
 * UCF101 experiment stored clips as per-frame JPEGs). A custom field: type id 255, its
 * options in our descriptor argument blob ("BTSF" + JSON spec, see registry.ts).
 *
 * Metadata, a packed struct (alignment 1, as FFCV's own structs), 27 bytes:
 *
 * | offset | type  | member     | meaning                                              |
 * |--------|-------|------------|------------------------------------------------------|
 * | 0      | u1    | mode       | 0 = every frame a JPEG file, 1 = raw RGB frames      |
 * | 1      | <u2   | num_frames | T ≥ 1                                                |
 * | 3      | <u2   | width      | frame width after maxResolution                      |
 * | 5      | <u2   | height     | frame height after maxResolution                     |
 * | 7      | <u4   | fps_num    | frame rate as a rational fps_num / fps_den           |
 * | 11     | <u4   | fps_den    | (0/1 when unknown)                                   |
 * | 15     | <u8   | data_ptr   | the clip's heap object (absolute file offset)        |
 * | 23     | <u4   | data_size  | its size in bytes                                    |
 *
 * Heap: one allocation per clip, so a clip never straddles a page: a frame-offset table
 * of T + 1 `<u4` offsets (relative to the start of the object; frame k is bytes
 * [off[k], off[k+1]), off[T] = data_size), then the frames back to back (JPEG files, or
 * height·width·3 RGB bytes each).
 */
export const VIDEO_CLIP_META_SIZE = 27;
export const CLIP_MODE_JPG = 0;
export const CLIP_MODE_RAW = 1;
const MAX_DIM = 65535;
const MAX_FRAMES = 65535;

export type ClipWriteMode = 'jpg' | 'raw';
export const CLIP_WRITE_MODES: readonly ClipWriteMode[] = ['jpg', 'raw'];

export interface VideoClipFieldOptions {
  /** 'jpg' (default): every frame a baseline JPEG; 'raw': RGB bytes. */
  writeMode?: ClipWriteMode;
  /** JPEG quality 1..100 (default 90). */
  jpegQuality?: number;
  /** Cap on the longer side of a frame; larger frames are shrunk with area averaging (as RGBImageField). */
  maxResolution?: number | null;
  /** Every clip has exactly this many frames (checked when writing); null = any number. */
  frames?: number | null;
}

/** A frame rate: a number, or an exact rational such as [30000, 1001]. */
export type FrameRate = number | readonly [number, number];

/**
 * What the field accepts: T frames of RGB, frame after frame, in one buffer (plain data,
 * so it crosses to worker threads by structured clone).
 */
export interface ClipFrames {
  /** T·height·width·3 bytes: frame-major, then rows, then RGB. */
  frames: Uint8Array;
  width: number;
  height: number;
  /** Number of frames T (default: the buffer's length over one frame's). */
  count?: number;
  fps?: FrameRate | null;
}

/** A clip in stored form (copied from another .beton file): written as is. */
export interface StoredClip {
  mode: ClipWriteMode;
  width: number;
  height: number;
  fps: readonly [number, number];
  /** One entry per frame: a JPEG file, or height·width·3 raw bytes. */
  stored: readonly Uint8Array[];
}

/** A decoded clip: `data` holds count·height·width·3 RGB bytes, frame after frame. */
export interface DecodedClip {
  mode: ClipWriteMode;
  count: number;
  width: number;
  height: number;
  /** Frame rate as stored (numerator, denominator); [0, 1] when unknown. */
  fps: [number, number];
  data: Uint8Array;
  /** The stored bytes of each frame (JPEG files or raw frames). */
  stored: Uint8Array[];
}

/** The members of a clip's metadata, without decoding any frame. */
export interface ClipHeader {
  mode: number;
  count: number;
  width: number;
  height: number;
  fps: [number, number];
  dataSize: number;
}

export function readClipHeader(meta: DataView): ClipHeader {
  return {
    mode: meta.getUint8(0),
    count: meta.getUint16(1, true),
    width: meta.getUint16(3, true),
    height: meta.getUint16(5, true),
    fps: [meta.getUint32(7, true), meta.getUint32(11, true)],
    dataSize: meta.getUint32(23, true),
  };
}

/**
 * The byte ranges of a clip's frames inside its heap object (checked against the object's
 * size, so a corrupt table fails with a message instead of reading out of bounds).
 */
export function clipFrameRanges(heap: Uint8Array, count: number): Array<[number, number]> {
  const table = 4 * (count + 1);
  if (heap.byteLength < table)
    throw new BetonFormatError(
      'CORRUPT_DATA',
      `clip of ${count} frames has a ${heap.byteLength}-byte heap object, smaller than its ${table}-byte frame table`,
    );
  const dv = new DataView(heap.buffer, heap.byteOffset, heap.byteLength);
  const out: Array<[number, number]> = [];
  let prev = dv.getUint32(0, true);
  if (prev !== table)
    throw new BetonFormatError('CORRUPT_DATA', `clip frame table starts frame 0 at ${prev}, expected ${table} (right after the table)`);
  for (let k = 1; k <= count; k++) {
    const next = dv.getUint32(4 * k, true);
    if (next < prev || next > heap.byteLength)
      throw new BetonFormatError('CORRUPT_DATA', `clip frame ${k - 1} spans ${prev}..${next}, outside the ${heap.byteLength}-byte object`);
    out.push([prev, next]);
    prev = next;
  }
  return out;
}

/** A frame rate as the rational stored in the metadata (exact for ffmpeg's "30000/1001"). */
export function fpsRational(fps: FrameRate | null | undefined): [number, number] {
  if (fps === null || fps === undefined) return [0, 1];
  if (typeof fps !== 'number') {
    const [n, d] = fps;
    if (!(Number.isInteger(n) && Number.isInteger(d) && n >= 0 && d > 0 && n <= 0xffffffff && d <= 0xffffffff)) {
      throw new BetonEncodeError('BAD_VALUE', `clip fps must be [num, den] with 0 <= num, 0 < den < 2^32, got [${n}, ${d}]`);
    }
    return [n, d];
  }
  if (!(Number.isFinite(fps) && fps >= 0)) throw new BetonEncodeError('BAD_VALUE', `clip fps must be a non-negative number, got ${fps}`);
  if (Number.isInteger(fps)) return [fps, 1];
  // NTSC rates first (29.97 → 30000/1001), then a continued fraction with a bounded denominator.
  for (const base of [24, 30, 48, 60, 120]) if (Math.abs(fps - (base * 1000) / 1001) < 1e-3) return [base * 1000, 1001];
  let [h0, h1, k0, k1] = [0, 1, 1, 0];
  let x = fps;
  for (let i = 0; i < 32; i++) {
    const a = Math.floor(x);
    const [h2, k2] = [a * h1 + h0, a * k1 + k0];
    if (k2 > 100000) break;
    [h0, h1, k0, k1] = [h1, h2, k1, k2];
    if (Math.abs(x - a) < 1e-12) break;
    x = 1 / (x - a);
  }
  return [h1, k1];
}

export function isClipFrames(v: unknown): v is ClipFrames {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as ClipFrames).frames instanceof Uint8Array &&
    Number.isInteger((v as ClipFrames).width) &&
    Number.isInteger((v as ClipFrames).height)
  );
}

function isStoredClip(v: unknown): v is StoredClip {
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as StoredClip).stored) &&
    ((v as StoredClip).mode === 'jpg' || (v as StoredClip).mode === 'raw')
  );
}

/** video_clip's identity, declared once: VideoClipField and VIDEO_CLIP_TYPE (video-clip-type.ts) read it. */
export const VIDEO_CLIP_IDENTITY = {
  type: FIELD_TYPE.videoClip,
  typeId: CUSTOM_TYPE_ID,
  ffcvClass: 'VideoClipField',
} as const satisfies FieldIdentity;

export class VideoClipField extends TypedField<DecodedClip> {
  readonly metadata = { size: VIDEO_CLIP_META_SIZE, align: 1 };
  readonly pointerOffset = 15;
  readonly writeMode: ClipWriteMode;
  readonly jpegQuality: number;
  readonly maxResolution: number | null;
  readonly frames: number | null;

  constructor(opts: VideoClipFieldOptions = {}) {
    super(VIDEO_CLIP_IDENTITY);
    this.writeMode = opts.writeMode ?? 'jpg';
    this.jpegQuality = Math.trunc(opts.jpegQuality ?? 90);
    this.maxResolution = opts.maxResolution ?? null;
    this.frames = opts.frames ?? null;
    if (!CLIP_WRITE_MODES.includes(this.writeMode)) {
      throw new BetonEncodeError(
        'BAD_SCHEMA',
        `VideoClipField writeMode must be one of ${CLIP_WRITE_MODES.join(', ')}, got "${String(this.writeMode)}"`,
      );
    }
    if (!(this.jpegQuality >= 1 && this.jpegQuality <= 100))
      throw new BetonEncodeError('BAD_SCHEMA', `VideoClipField jpegQuality must be 1..100, got ${opts.jpegQuality}`);
    if (this.maxResolution !== null && (!Number.isInteger(this.maxResolution) || this.maxResolution < 1)) {
      throw new BetonEncodeError('BAD_SCHEMA', `VideoClipField maxResolution must be a positive integer, got ${this.maxResolution}`);
    }
    if (this.frames !== null && (!Number.isInteger(this.frames) || this.frames < 1 || this.frames > MAX_FRAMES)) {
      throw new BetonEncodeError('BAD_SCHEMA', `VideoClipField frames must be an integer 1..${MAX_FRAMES} or null, got ${this.frames}`);
    }
  }

  toSpec(): FieldSpec {
    return {
      type: this.type,
      writeMode: this.writeMode,
      jpegQuality: this.jpegQuality,
      maxResolution: this.maxResolution,
      frames: this.frames,
    };
  }

  /** Our custom-field blob: "BTSF", u16 length, then the spec as JSON (the Python export parses the same). */
  override encodeArguments(): Uint8Array {
    return customArguments(this.toSpec());
  }

  async encode(value: unknown, ctx: EncodeContext): Promise<EncodedValue> {
    if (isStoredClip(value)) return this.storedClip(value);
    if (!isClipFrames(value)) {
      throw new BetonEncodeError('BAD_VALUE', 'VideoClipField needs a clip { frames: Uint8Array (T·H·W·3), width, height, count, fps }');
    }
    const { width, height } = value;
    const count = value.count ?? value.frames.byteLength / Math.max(1, width * height * 3);
    if (!Number.isInteger(count) || count < 1 || count > MAX_FRAMES)
      throw new BetonEncodeError('BAD_VALUE', `a clip has 1..${MAX_FRAMES} frames, got ${count}`);
    if (width < 1 || height < 1 || value.frames.byteLength !== count * width * height * 3) {
      throw new BetonEncodeError(
        'BAD_VALUE',
        `clip frames must be count·width·height·3 bytes (got ${value.frames.byteLength} for ${count} frames of ${width}x${height}); RGB only`,
      );
    }
    this.checkCount(count);
    const fps = fpsRational(value.fps);
    const [w, h] = cappedSize(width, height, this.maxResolution);
    if (w < 1 || h < 1)
      throw new BetonEncodeError(
        'BAD_VALUE',
        `frames ${width}x${height} would shrink to ${w}x${h} under maxResolution ${this.maxResolution}; raise maxResolution`,
      );
    if (w > MAX_DIM || h > MAX_DIM)
      throw new BetonEncodeError('BAD_VALUE', `frames ${w}x${h} exceed the 65535-pixel limit per side; set maxResolution`);
    const resize = w !== width || h !== height;
    const codec = resize || this.writeMode === 'jpg' ? need(ctx) : null;
    const frameBytes = width * height * 3;
    const stored: Uint8Array[] = [];
    for (let k = 0; k < count; k++) {
      let px: RGBPixels = { data: value.frames.subarray(k * frameBytes, (k + 1) * frameBytes), width, height };
      if (resize) px = codec!.resizeArea(px, w, h);
      stored.push(this.writeMode === 'jpg' ? codec!.encodeJpeg(px, this.jpegQuality) : px.data);
    }
    return this.pack(this.writeMode, w, h, fps, stored);
  }

  private checkCount(count: number): void {
    if (this.frames !== null && count !== this.frames) {
      throw new BetonEncodeError(
        'BAD_VALUE',
        `the field declares ${this.frames} frames per clip, this clip has ${count}; set frames: null for clips of varying length`,
      );
    }
  }

  private storedClip(v: StoredClip): EncodedValue {
    const count = v.stored.length;
    if (count < 1 || count > MAX_FRAMES) throw new BetonEncodeError('BAD_VALUE', `a clip has 1..${MAX_FRAMES} frames, got ${count}`);
    this.checkCount(count);
    if (v.mode === 'raw' && v.stored.some((f) => f.byteLength !== v.width * v.height * 3)) {
      throw new BetonEncodeError('BAD_VALUE', `stored raw frames must be ${v.width}x${v.height}x3 bytes each`);
    }
    return this.pack(v.mode, v.width, v.height, fpsRational(v.fps), v.stored);
  }

  /** Metadata and the one heap object: offset table, then the frames. */
  private pack(mode: ClipWriteMode, width: number, height: number, fps: [number, number], frames: readonly Uint8Array[]): EncodedValue {
    const table = 4 * (frames.length + 1);
    const size = frames.reduce((s, f) => s + f.byteLength, table);
    if (size > 0xffffffff)
      throw new BetonEncodeError('BAD_VALUE', `a clip of ${size} bytes is larger than any page; use fewer frames, maxResolution or JPEG`);
    const heap = new Uint8Array(size);
    const dv = new DataView(heap.buffer);
    let off = table;
    frames.forEach((f, k) => {
      dv.setUint32(4 * k, off, true);
      heap.set(f, off);
      off += f.byteLength;
    });
    dv.setUint32(4 * frames.length, off, true);
    const meta = new Uint8Array(VIDEO_CLIP_META_SIZE);
    const m = new DataView(meta.buffer);
    m.setUint8(0, mode === 'jpg' ? CLIP_MODE_JPG : CLIP_MODE_RAW);
    m.setUint16(1, frames.length, true);
    m.setUint16(3, width, true);
    m.setUint16(5, height, true);
    m.setUint32(7, fps[0], true);
    m.setUint32(11, fps[1], true);
    m.setUint32(23, size, true);
    return { meta, heap };
  }

  override heapSize(meta: DataView): number | null {
    return meta.getUint32(23, true);
  }

  decode(meta: DataView, heap: Uint8Array | null, ctx: DecodeContext): DecodedClip {
    const h = readClipHeader(meta);
    if (h.mode !== CLIP_MODE_JPG && h.mode !== CLIP_MODE_RAW)
      throw new BetonFormatError('CORRUPT_DATA', `clip mode ${h.mode} is neither 0 (jpg) nor 1 (raw)`);
    const bytes = heap ?? new Uint8Array(0);
    const ranges = clipFrameRanges(bytes, h.count);
    const frameBytes = h.width * h.height * 3;
    const data = new Uint8Array(h.count * frameBytes);
    const stored: Uint8Array[] = [];
    ranges.forEach(([a, b], k) => {
      const f = bytes.subarray(a, b);
      stored.push(f);
      if (h.mode === CLIP_MODE_RAW) {
        if (f.byteLength !== frameBytes)
          throw new BetonFormatError('CORRUPT_DATA', `raw clip frame ${k} is ${f.byteLength} bytes, expected ${h.width}x${h.height}x3`);
        data.set(f, k * frameBytes);
        return;
      }
      if (!ctx.codec) throw new BetonFormatError('CORRUPT_DATA', 'decoding JPEG clip frames needs the image codec');
      const px = ctx.codec.decodeJpeg(f);
      if (px.width !== h.width || px.height !== h.height) {
        throw new BetonFormatError(
          'CORRUPT_DATA',
          `clip frame ${k} is a ${px.width}x${px.height} JPEG but the metadata says ${h.width}x${h.height}`,
        );
      }
      data.set(px.data, k * frameBytes);
    });
    return { mode: h.mode === CLIP_MODE_JPG ? 'jpg' : 'raw', count: h.count, width: h.width, height: h.height, fps: h.fps, data, stored };
  }
}

function need(ctx: EncodeContext): Pick<ImageCodec, 'resizeArea' | 'encodeJpeg'> {
  if (!ctx.codec) throw new BetonEncodeError('BAD_OPTIONS', 'resizing/JPEG-encoding clip frames needs the image codec (native addon)');
  return ctx.codec;
}

import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import {
  TypedField,
  type DecodeContext,
  type EncodeContext,
  type EncodedValue,
  type FieldIdentity,
  type FieldSpec,
  type ImageMode,
} from './field.js';
import { isRGBPixels, type ImageInput, type RGBPixels } from './image-codec.js';
import { FIELD_TYPE } from '../api/constants.js';

export type WriteMode = 'raw' | 'jpg' | 'smart' | 'proportion';
export const WRITE_MODES: readonly WriteMode[] = ['raw', 'jpg', 'smart', 'proportion'];

export interface RGBImageFieldOptions {
  writeMode?: WriteMode;
  /** Cap on the longer side; larger images are shrunk with area averaging. */
  maxResolution?: number | null;
  /** 'smart': store as JPEG when h·w·3 (raw bytes) exceeds this; null = always raw. */
  smartThreshold?: number | null;
  jpegQuality?: number;
  /** 'proportion': probability of storing a sample as JPEG. */
  compressProbability?: number;
  /**
   * Store a source JPEG unchanged, instead of decoding and re-encoding it, whenever the
   * write mode picks JPEG for it and it qualifies (see ImageCodec.probePassThrough).
   * Faster and lossless; the bytes still decode in FFCV.
   */
  passThrough?: boolean;
}

/** A decoded image sample. `data` is RGB, h·w·3 bytes. */
export interface DecodedImage extends RGBPixels {
  mode: ImageMode;
  /** The bytes as stored in the file (JPEG file or raw pixels). */
  stored: Uint8Array;
}

export const IMAGE_MODE_JPG = 0;
export const IMAGE_MODE_RAW = 1;
const MAX_DIM = 65535;

/** New size for a max-resolution cap, truncating as FFCV does (float64 ratio × side); may be 0. */
export function cappedSize(width: number, height: number, maxResolution: number | null | undefined): [number, number] {
  if (!maxResolution) return [width, height];
  const ratio = maxResolution / Math.max(width, height);
  if (ratio >= 1) return [width, height];
  return [Math.trunc(ratio * width), Math.trunc(ratio * height)];
}

/**
 * The size the writer stores: {@link cappedSize}, except that a side truncated to 0 (a 4000x1
 * image under a 512 cap) is kept at 1. FFCV's cv2.resize fails there; with a cap on by default
 * such an image must still build. Every size FFCV can write is unchanged.
 */
export function storedSize(width: number, height: number, maxResolution: number | null | undefined): [number, number] {
  const [w, h] = cappedSize(width, height, maxResolution);
  return [Math.max(1, w), Math.max(1, h)];
}

/** rgb_image's identity, declared once: RGBImageField and RGB_IMAGE_TYPE (rgb-image-type.ts) read it. */
export const RGB_IMAGE_IDENTITY = { type: FIELD_TYPE.rgbImage, typeId: 2, ffcvClass: 'RGBImageField' } as const satisfies FieldIdentity;

/**
 * RGBImageField (type 2). Metadata is a packed 13-byte struct {mode u1, width <u2,
 * height <u2, data_ptr <u8}; the heap holds a JPEG file (mode 0) or raw RGB (mode 1).
 * None of the writer options are stored in the file (all-zero arguments), as in FFCV.
 */
export class RGBImageField extends TypedField<DecodedImage> {
  readonly metadata = { size: 13, align: 1 };
  readonly pointerOffset = 5;
  readonly writeMode: WriteMode;
  readonly maxResolution: number | null;
  readonly smartThreshold: number | null;
  readonly jpegQuality: number;
  readonly compressProbability: number;
  readonly passThrough: boolean;

  constructor(opts: RGBImageFieldOptions = {}) {
    super(RGB_IMAGE_IDENTITY);
    this.writeMode = opts.writeMode ?? 'raw';
    this.maxResolution = opts.maxResolution ?? null;
    this.smartThreshold = opts.smartThreshold ?? null;
    this.jpegQuality = Math.trunc(opts.jpegQuality ?? 90);
    this.compressProbability = opts.compressProbability ?? 0.5;
    this.passThrough = opts.passThrough ?? false;
    if (!WRITE_MODES.includes(this.writeMode)) {
      throw new BetonEncodeError(
        'BAD_SCHEMA',
        `RGBImageField writeMode must be one of ${WRITE_MODES.join(', ')}, got "${String(this.writeMode)}"`,
      );
    }
    if (this.maxResolution !== null && (!Number.isInteger(this.maxResolution) || this.maxResolution < 1)) {
      throw new BetonEncodeError('BAD_SCHEMA', `RGBImageField maxResolution must be a positive integer, got ${this.maxResolution}`);
    }
    if (!(this.jpegQuality >= 1 && this.jpegQuality <= 100)) {
      throw new BetonEncodeError('BAD_SCHEMA', `RGBImageField jpegQuality must be 1..100, got ${opts.jpegQuality}`);
    }
    if (!(this.compressProbability >= 0 && this.compressProbability <= 1)) {
      throw new BetonEncodeError('BAD_SCHEMA', `RGBImageField compressProbability must be in [0, 1], got ${this.compressProbability}`);
    }
  }

  toSpec(): FieldSpec {
    return {
      type: this.type,
      writeMode: this.writeMode,
      maxResolution: this.maxResolution,
      smartThreshold: this.smartThreshold,
      jpegQuality: this.jpegQuality,
      compressProbability: this.compressProbability,
      passThrough: this.passThrough,
    };
  }

  async encode(value: unknown, ctx: EncodeContext): Promise<EncodedValue> {
    if (isStoredImage(value)) return storedImage(value);
    if (this.passThrough && this.writeMode !== 'raw' && !isRGBPixels(value) && ctx.codec?.probePassThrough) {
      const jpeg = await ctx.codec.probePassThrough(value as ImageInput, ctx.baseDir, this.maxResolution);
      // The draw happens once either way, so 'proportion' picks the same samples with and without pass-through.
      if (jpeg && this.chooseJpeg({ width: jpeg.width, height: jpeg.height }, ctx)) {
        const v = storedImage({ mode: 'jpg', width: jpeg.width, height: jpeg.height, stored: jpeg.bytes });
        return { ...v, sourceBytes: jpeg.bytes.byteLength, passThrough: true };
      }
      if (jpeg) return this.encodePixels(await need(ctx).load(value as ImageInput, ctx.baseDir), ctx, false);
    }
    if (!isRGBPixels(value) && ctx.codec?.transcode) {
      // A draw the plan makes ('proportion') must not be made again if the image then
      // takes the general path: the sample's random stream would shift.
      let drawn: number | undefined;
      const once: EncodeContext = { ...ctx, random: () => (drawn ??= ctx.random()) };
      const r = ctx.codec.transcode(value as ImageInput, ctx.baseDir, (width, height) => {
        const [w, h] = storedSize(width, height, this.maxResolution);
        // Sizes the general path refuses are left to it, so it reports them.
        if (w < 1 || h < 1 || w > MAX_DIM || h > MAX_DIM) return null;
        return { width: w, height: h, jpegQuality: this.chooseJpeg({ width: w, height: h }, once) ? this.jpegQuality : null };
      });
      if ('bytes' in r)
        return { ...imageValue(r.jpeg, r.width, r.height, r.bytes), ...(r.sourceBytes ? { sourceBytes: r.sourceBytes } : {}) };
      return this.encodePixels(await this.pixelsOf(r.fallback, once), once, true);
    }
    return this.encodePixels(await this.pixelsOf(value, ctx), ctx, true);
  }

  /**
   * A raw-mode image whose stored pixels (after maxResolution) cannot fit in a page is
   * refused from its header, before a decode that can take gigabytes (a 16000² PNG: 768 MB
   * stored, 4.6 GB of memory to learn it). Other modes store JPEG, whose size is unknown.
   */
  private refuseFromHeader(value: ImageInput, ctx: EncodeContext): void {
    if (this.writeMode !== 'raw' || !ctx.maxObjectBytes || !ctx.codec?.headerDims) return;
    const dims = ctx.codec.headerDims(value, ctx.baseDir);
    if (!dims) return;
    const [w, h] = cappedSize(dims.width, dims.height, this.maxResolution);
    const bytes = w * h * 3;
    if (bytes > ctx.maxObjectBytes)
      throw new BetonEncodeError(
        'OBJECT_TOO_LARGE',
        `image ${dims.width}x${dims.height} would store ${w}x${h} raw pixels (${bytes} bytes), larger than the page size ${ctx.maxObjectBytes} (read from its header, not decoded); set maxResolution, use writeMode jpg, or a larger page size`,
        { sample: ctx.sampleIndex },
      );
  }

  private async pixelsOf(value: unknown, ctx: EncodeContext): Promise<RGBPixels> {
    if (isRGBPixels(value)) return value;
    if (ctx.codec) {
      this.refuseFromHeader(value as ImageInput, ctx);
      return ctx.codec.load(value as ImageInput, ctx.baseDir);
    }
    throw new BetonEncodeError(
      'BAD_VALUE',
      'RGBImageField needs RGB pixels {data, width, height} (no image codec available to read files)',
    );
  }

  /** Resize, choose the mode (unless already chosen: `draw` false means raw), store. */
  private encodePixels(source: RGBPixels, ctx: EncodeContext, draw: boolean): EncodedValue {
    let px = source;
    checkPixels(px);
    const [w, h] = storedSize(px.width, px.height, this.maxResolution);
    if (w !== px.width || h !== px.height) {
      if (w < 1 || h < 1) {
        throw new BetonEncodeError(
          'BAD_VALUE',
          `image ${px.width}x${px.height} would shrink to ${w}x${h} under maxResolution ${this.maxResolution}; raise maxResolution`,
        );
      }
      px = need(ctx).resizeArea(px, w, h);
    }
    if (px.width > MAX_DIM || px.height > MAX_DIM) {
      throw new BetonEncodeError(
        'BAD_VALUE',
        `image ${px.width}x${px.height} exceeds the format's 65535-pixel limit per side; set maxResolution`,
      );
    }
    const jpg = draw && this.chooseJpeg(px, ctx);
    const heap = jpg ? need(ctx).encodeJpeg(px, this.jpegQuality) : px.data;
    return { ...imageValue(jpg, px.width, px.height, heap), ...(source.sourceBytes ? { sourceBytes: source.sourceBytes } : {}) };
  }

  private chooseJpeg(px: { width: number; height: number }, ctx: EncodeContext): boolean {
    switch (this.writeMode) {
      case 'raw':
        return false;
      case 'jpg':
        return true;
      case 'smart':
        // FFCV compares the raw byte count (h·w·3), not the area, with the threshold; without
        // one it stores raw (as FFCV does). Builds (core/api/build-config.ts) default the threshold.
        return this.smartThreshold !== null && px.width * px.height * 3 > this.smartThreshold;
      case 'proportion':
        return ctx.random() < this.compressProbability;
    }
  }

  /** The mode byte: 0 is a JPEG; anything else counts as raw (decode refuses a mode other than 0 or 1). */
  override imageMode(meta: DataView): ImageMode {
    return meta.getUint8(0) === IMAGE_MODE_JPG ? 'jpg' : 'raw';
  }

  /** Width and height, <u2 each after the mode byte. */
  override imageSize(meta: DataView): { width: number; height: number } {
    return { width: meta.getUint16(1, true), height: meta.getUint16(3, true) };
  }

  override heapSize(meta: DataView): number | null {
    if (meta.getUint8(0) !== IMAGE_MODE_RAW) return null;
    return meta.getUint16(1, true) * meta.getUint16(3, true) * 3;
  }

  decode(meta: DataView, heap: Uint8Array | null, ctx: DecodeContext): DecodedImage {
    const mode = meta.getUint8(0);
    const width = meta.getUint16(1, true);
    const height = meta.getUint16(3, true);
    const stored = heap ?? new Uint8Array(0);
    if (mode === IMAGE_MODE_RAW) return { mode: 'raw', width, height, data: stored.slice(), stored };
    if (mode !== IMAGE_MODE_JPG) throw new BetonFormatError('CORRUPT_DATA', `image mode ${mode} is neither 0 (jpg) nor 1 (raw)`);
    if (!ctx.codec) throw new BetonFormatError('CORRUPT_DATA', 'decoding a JPEG sample needs the image codec');
    const px = ctx.codec.decodeJpeg(stored);
    if (px.width !== width || px.height !== height) {
      throw new BetonFormatError('CORRUPT_DATA', `JPEG is ${px.width}x${px.height} but the metadata says ${width}x${height}`);
    }
    return { mode: 'jpg', width, height, data: px.data, stored };
  }
}

/**
 * An image already in stored form (a sample copied from another .beton file): written
 * as is, without resizing or re-encoding, whatever the write mode.
 */
export interface StoredImage {
  mode: 'raw' | 'jpg';
  width: number;
  height: number;
  stored: Uint8Array;
}

function isStoredImage(v: unknown): v is StoredImage {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as StoredImage).stored instanceof Uint8Array &&
    ((v as StoredImage).mode === 'raw' || (v as StoredImage).mode === 'jpg')
  );
}

function storedImage(v: StoredImage): EncodedValue {
  if (v.mode === 'raw' && v.stored.byteLength !== v.width * v.height * 3) {
    throw new BetonEncodeError('BAD_VALUE', `stored raw image is ${v.stored.byteLength} bytes, expected ${v.width}x${v.height}x3`);
  }
  const meta = new Uint8Array(13);
  const dv = new DataView(meta.buffer);
  dv.setUint8(0, v.mode === 'jpg' ? IMAGE_MODE_JPG : IMAGE_MODE_RAW);
  dv.setUint16(1, v.width, true);
  dv.setUint16(3, v.height, true);
  return { meta, heap: v.stored };
}

/** The stored value: 13-byte metadata {mode, width, height, ptr (patched at placement)} and the heap bytes. */
function imageValue(jpg: boolean, width: number, height: number, heap: Uint8Array): EncodedValue {
  const meta = new Uint8Array(13);
  const v = new DataView(meta.buffer);
  v.setUint8(0, jpg ? IMAGE_MODE_JPG : IMAGE_MODE_RAW);
  v.setUint16(1, width, true);
  v.setUint16(3, height, true);
  return { meta, heap };
}

function need(ctx: EncodeContext): NonNullable<EncodeContext['codec']> {
  if (!ctx.codec) throw new BetonEncodeError('BAD_OPTIONS', 'image resizing/JPEG encoding needs the image codec (native addon)');
  return ctx.codec;
}

function checkPixels(px: RGBPixels): void {
  if (px.width < 1 || px.height < 1 || px.data.byteLength !== px.width * px.height * 3) {
    throw new BetonEncodeError(
      'BAD_VALUE',
      `RGB pixels must be width·height·3 bytes (got ${px.data.byteLength} for ${px.width}x${px.height}); RGB only, no alpha`,
    );
  }
}

import { centerCrop, randomResizedCrop } from '../pipeline/crop.js';
import type { DecoderSpec } from '../pipeline/spec.js';
import { PipelineError } from '../pipeline/stage.js';
import { BetonFormatError } from '../format/errors.js';
import type { DecoderFactory, FieldStats, FieldTable, FieldType } from './field-type.js';
import { py } from '../pipeline/python-code.js';
import {
  IMAGE_MODE_JPG,
  IMAGE_MODE_RAW,
  RGB_IMAGE_IDENTITY,
  RGBImageField,
  type DecodedImage,
  type RGBImageFieldOptions,
} from './rgb-image-field.js';

/** Image sizes over the whole file: SimpleRGBImageDecoder needs one size, the crops do not. */
export interface ImageStats extends FieldStats {
  minWidth: number;
  maxWidth: number;
  minHeight: number;
  maxHeight: number;
}

/** One walk over the metadata table (width at +1, height at +3), no DataView per record. */
export function imageStats(t: FieldTable): ImageStats {
  let minW = Infinity,
    maxW = 0,
    minH = Infinity,
    maxH = 0;
  for (let i = 0, off = t.offset; i < t.numSamples; i++, off += t.stride) {
    const w = t.metadata.getUint16(off + 1, true);
    const h = t.metadata.getUint16(off + 3, true);
    if (w < minW) minW = w;
    if (w > maxW) maxW = w;
    if (h < minH) minH = h;
    if (h > maxH) maxH = h;
  }
  return t.numSamples > 0
    ? { minWidth: minW, maxWidth: maxW, minHeight: minH, maxHeight: maxH }
    : { minWidth: 0, maxWidth: 0, minHeight: 0, maxHeight: 0 };
}

/**
 * Whether a stored image's mode byte says raw (true) or JPEG (false). Anything else is a
 * corrupt sample, as the Reader (`beton dump`) says: the loader must not read a mode-2
 * image as a JPEG that the Reader refuses.
 */
export function isRawImage(mode: number): boolean {
  if (mode !== IMAGE_MODE_RAW && mode !== IMAGE_MODE_JPG)
    throw new BetonFormatError('CORRUPT_DATA', `image mode ${mode} is neither 0 (jpg) nor 1 (raw)`);
  return mode === IMAGE_MODE_RAW;
}

/** SimpleRGBImageDecoder: whole images, so every image of the file must have one size. */
const simpleRgbDecoder: DecoderFactory = (_step, _field, stats, kernels) => {
  const s = stats as ImageStats;
  if (s.minWidth !== s.maxWidth || s.minHeight !== s.maxHeight) {
    throw new PipelineError(
      'UNSUPPORTED_INPUT',
      `SimpleRGBImageDecoder needs images of one size, but they range from ${s.minWidth}x${s.minHeight} to ${s.maxWidth}x${s.maxHeight}; use RandomResizedCropRGBImageDecoder or CenterCropRGBImageDecoder`,
    );
  }
  return {
    output: { shape: [s.maxHeight, s.maxWidth, 3], dtype: 'uint8' },
    decode: (m, heap, d) => {
      if (isRawImage(m.getUint8(0))) (d as Uint8Array).set(heap!);
      else kernels.decodeJpegInto(heap!, d as Uint8Array, m.getUint16(1, true), m.getUint16(3, true));
    },
  };
};

/** RandomResizedCrop / CenterCrop: a crop per sample, area-resized to the output size. */
const cropDecoder: DecoderFactory = (step, _field, _stats, kernels) => {
  const spec = step as Extract<DecoderSpec, { decoder: 'random_resized_crop' | 'center_crop' }>;
  const [outH, outW] = spec.size;
  const resizer = kernels.cropResizer();
  return {
    output: { shape: [outH, outW, 3], dtype: 'uint8' },
    decode: (m, heap, d, rng) => {
      const w = m.getUint16(1, true);
      const h = m.getUint16(3, true);
      const crop = spec.decoder === 'center_crop' ? centerCrop(h, w, spec.ratio) : randomResizedCrop(h, w, spec.scale, spec.ratio, rng);
      resizer.run(isRawImage(m.getUint8(0)), heap!, w, h, { x: crop.x, y: crop.y, w: crop.w, h: crop.h }, outW, outH, d as Uint8Array);
    },
  };
};

const num = (v: unknown): number | null | undefined => v as number | null | undefined;

export const RGB_IMAGE_TYPE: FieldType<RGBImageField> = {
  ...RGB_IMAGE_IDENTITY,
  usesImageCodec: true,
  fromSpec: (s) =>
    new RGBImageField({
      writeMode: s.writeMode as RGBImageFieldOptions['writeMode'],
      maxResolution: num(s.maxResolution),
      smartThreshold: num(s.smartThreshold),
      jpegQuality: num(s.jpegQuality) ?? undefined,
      compressProbability: num(s.compressProbability) ?? undefined,
      passThrough: s.passThrough === true,
    }),
  decoders: { simple_rgb: simpleRgbDecoder, random_resized_crop: cropDecoder, center_crop: cropDecoder },
  defaultDecoder: { decoder: 'simple_rgb' },
  stats: imageStats,
  preview: async (v, tools) => {
    const im = v as DecodedImage;
    return { kind: 'image', mime: 'image/png', base64: await tools.png(im, tools.size), width: im.width, height: im.height, mode: im.mode };
  },
  canonical: (v, t) => {
    const im = v as DecodedImage;
    return {
      mode: im.mode,
      width: im.width,
      height: im.height,
      sha256: t.sha256(im.data),
      stored_size: im.stored.byteLength,
      stored_sha256: t.sha256(im.stored),
    };
  },
  python: {
    field: (c) =>
      `${RGB_IMAGE_IDENTITY.ffcvClass}(write_mode=${py(c.writeMode)}, max_resolution=${py(c.maxResolution)}, smart_threshold=${py(c.smartThreshold)}, jpeg_quality=${String(c.jpegQuality)}, compress_probability=${String(c.compressProbability)})`,
    buildNotes: (c) => (c.passThrough === true ? ['JPEG pass-through is a Beton Studio option; FFCV always re-encodes.'] : []),
    decoders: {
      simple_rgb: () => 'SimpleRGBImageDecoder()',
      random_resized_crop: (s) => {
        const r = s as Extract<DecoderSpec, { decoder: 'random_resized_crop' }>;
        return `RandomResizedCropRGBImageDecoder(${py(r.size)}, scale=${py(r.scale)}, ratio=${py(r.ratio)})`;
      },
      center_crop: (s) => {
        const c = s as Extract<DecoderSpec, { decoder: 'center_crop' }>;
        return `CenterCropRGBImageDecoder(${py(c.size)}, ratio=${c.ratio})`;
      },
    },
  },
};

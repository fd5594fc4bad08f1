import type { Field } from '../fields/field.js';
import type { NDArrayField } from '../fields/ndarray-field.js';
import { centerCrop, randomResizedCrop } from '../pipeline/crop.js';
import { elementTypeOf, type OutputArray, type TensorSpec } from '../pipeline/dtypes.js';
import type { Rng } from '../pipeline/rng.js';
import type { DecoderSpec } from '../pipeline/spec.js';
import type { Reader } from '../reader/reader.js';
import { PipelineError } from '../pipeline/stage.js';
import { clipFieldStats, createClipDecoder, type ClipStats } from './clip-decoders.js';
import { CropResizer, decodeJpegInto, isRawImage, type ImageDecodeOptions } from './image-decode.js';

/** Whole-file facts decoders plan with (as FFCV: the whole file, not just `indices`). */
export interface FieldStats {
  minWidth: number;
  maxWidth: number;
  minHeight: number;
  maxHeight: number;
  maxBytes: number;
  /** video_clip fields: clip lengths and frame sizes (clipFieldStats). */
  clip?: ClipStats;
}

/** Whole-file sizes a decoder plans with (FFCV plans with the whole file, not `indices`). */
export function fieldStats(reader: Reader, f: number): FieldStats {
  const field = reader.fields[f]!.field;
  const s: FieldStats = { minWidth: 0, maxWidth: 0, minHeight: 0, maxHeight: 0, maxBytes: 0 };
  // Only image sizes and byte lengths are planned with: other fields skip the walk, which
  // on a tabular file of a million records is most of Loader.open.
  if (field.type === 'rgb_image') {
    // One view over the metadata table, not one DataView per record.
    const table = new DataView(reader.metadata.buffer, reader.metadata.byteOffset, reader.metadata.byteLength);
    const stride = reader.recordLayout.size;
    let minW = Infinity, maxW = 0, minH = Infinity, maxH = 0;
    for (let i = 0, off = reader.recordLayout.offsets[f]!; i < reader.numSamples; i++, off += stride) {
      const w = table.getUint16(off + 1, true);
      const h = table.getUint16(off + 3, true);
      if (w < minW) minW = w;
      if (w > maxW) maxW = w;
      if (h < minH) minH = h;
      if (h > maxH) maxH = h;
    }
    if (reader.numSamples > 0) Object.assign(s, { minWidth: minW, maxWidth: maxW, minHeight: minH, maxHeight: maxH });
  } else if (field.type === 'bytes' || field.type === 'json') {
    for (let i = 0; i < reader.numSamples; i++) s.maxBytes = Math.max(s.maxBytes, reader.heapRef(i, f)?.size ?? 0);
  }
  if (field.type === 'video_clip') s.clip = clipFieldStats(reader, f);
  return s;
}

export interface Decoder {
  readonly output: TensorSpec;
  /**
   * The row is the first `copiesMetadata` bytes of the field's metadata member, unchanged
   * (int64 and float64 values): the worker copies them from the metadata table itself,
   * with no per-sample view, heap lookup or rng — per-sample overhead is what bounds a
   * tabular loader.
   */
  readonly copiesMetadata?: number;
  /** Decodes one sample straight into `dst` (one row of a batch slot or a scratch buffer). */
  decode(meta: DataView, heap: Uint8Array | null, dst: OutputArray, rng: Rng): void;
}

/** FFCV's default decoder per field type. */
export function defaultDecoder(field: Field): DecoderSpec {
  switch (field.type) {
    case 'int': return { decoder: 'int' };
    case 'float': return { decoder: 'float' };
    case 'ndarray':
    case 'torch_tensor': return { decoder: 'ndarray' };
    case 'bytes':
    case 'json': return { decoder: 'bytes' };
    case 'rgb_image': return { decoder: 'simple_rgb' };
    case 'video_clip': return { decoder: 'clip_simple' };
    default: throw new PipelineError('BAD_PIPELINE', `no default decoder for field type "${field.type}"; give one in the pipeline`);
  }
}

const needs = (spec: DecoderSpec, field: Field, types: string[]): void => {
  if (!types.includes(field.type)) throw new PipelineError('BAD_PIPELINE', `decoder ${spec.decoder} cannot read a ${field.ffcvClass}`);
};

/** `options` choose how image and clip decoders decode JPEGs (default: FFCV's pixels). */
export function createDecoder(spec: DecoderSpec, field: Field, stats: FieldStats, options: ImageDecodeOptions = {}): Decoder {
  switch (spec.decoder) {
    case 'clip_simple':
    case 'clip_random_resized_crop':
      return createClipDecoder(spec, field, stats, options);
    case 'int':
      needs(spec, field, ['int']);
      return { output: { shape: [1], dtype: 'int64' }, copiesMetadata: 8, decode: (m, _h, d) => ((d as BigInt64Array)[0] = m.getBigInt64(0, true)) };
    case 'float':
      needs(spec, field, ['float']);
      return { output: { shape: [1], dtype: 'float64' }, copiesMetadata: 8, decode: (m, _h, d) => ((d as Float64Array)[0] = m.getFloat64(0, true)) };
    case 'ndarray': {
      needs(spec, field, ['ndarray', 'torch_tensor']);
      const f = field as NDArrayField;
      const dtype = elementTypeOf(f.dtype.str);
      if (!dtype) throw new PipelineError('UNSUPPORTED_INPUT', `the loader cannot hold dtype ${f.dtype.str} (complex or big-endian); read it with Reader instead`);
      return {
        output: { shape: [...f.shape], dtype },
        decode: (_m, heap, d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength).set(heap!),
      };
    }
    case 'bytes':
      needs(spec, field, ['bytes', 'json']);
      // Rows are max-size wide; the tail past a sample's length is zeroed (FFCV leaves stale bytes).
      return {
        output: { shape: [Math.max(1, stats.maxBytes)], dtype: 'uint8' },
        decode: (_m, heap, d) => {
          const row = d as Uint8Array;
          const n = heap ? heap.byteLength : 0;
          if (heap) row.set(heap);
          row.fill(0, n);
        },
      };
    case 'simple_rgb': {
      needs(spec, field, ['rgb_image']);
      if (stats.minWidth !== stats.maxWidth || stats.minHeight !== stats.maxHeight) {
        throw new PipelineError(
          'UNSUPPORTED_INPUT',
          `SimpleRGBImageDecoder needs images of one size, but they range from ${stats.minWidth}x${stats.minHeight} to ${stats.maxWidth}x${stats.maxHeight}; use RandomResizedCropRGBImageDecoder or CenterCropRGBImageDecoder`,
        );
      }
      return {
        output: { shape: [stats.maxHeight, stats.maxWidth, 3], dtype: 'uint8' },
        decode: (m, heap, d) => {
          if (isRawImage(m.getUint8(0))) (d as Uint8Array).set(heap!);
          else decodeJpegInto(heap!, d as Uint8Array, m.getUint16(1, true), m.getUint16(3, true));
        },
      };
    }
    case 'random_resized_crop':
    case 'center_crop': {
      needs(spec, field, ['rgb_image']);
      const [outH, outW] = spec.size;
      const resizer = new CropResizer(options);
      return {
        output: { shape: [outH, outW, 3], dtype: 'uint8' },
        decode: (m, heap, d, rng) => {
          const w = m.getUint16(1, true);
          const h = m.getUint16(3, true);
          const crop = spec.decoder === 'center_crop' ? centerCrop(h, w, spec.ratio) : randomResizedCrop(h, w, spec.scale, spec.ratio, rng);
          resizer.run(isRawImage(m.getUint8(0)), heap!, w, h, { x: crop.x, y: crop.y, w: crop.w, h: crop.h }, outW, outH, d as Uint8Array);
        },
      };
    }
  }
}

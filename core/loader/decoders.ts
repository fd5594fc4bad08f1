import type { Field } from '../fields/field.js';
import type { Decoder, DecoderStep, FieldStats, FieldTable } from '../fields/field-type.js';
import { allFieldTypes, fieldType } from '../fields/registry.js';
import { clipStats, type ClipStats } from '../fields/video-clip-decoders.js';
import type { DecoderSpec } from '../pipeline/spec.js';
import { PipelineError } from '../pipeline/stage.js';
import type { Reader } from '../reader/reader.js';
import { decodeKernels, type ImageDecodeOptions } from './image-decode.js';

export type { Decoder, FieldStats } from '../fields/field-type.js';
export type { ClipStats } from '../fields/video-clip-decoders.js';

/**
 * Decoders and their whole-file stats belong to the field types (core/fields); this module
 * only looks them up in the registry and gives them the file's metadata and native kernels.
 */

/** Field `f`'s column of the reader's metadata table. */
export function fieldTable(reader: Reader, f: number): FieldTable {
  const table = new DataView(reader.metadata.buffer, reader.metadata.byteOffset, reader.metadata.byteLength);
  return {
    numSamples: reader.numSamples,
    metadata: table,
    offset: reader.recordLayout.offsets[f]!,
    stride: reader.recordLayout.size,
    member: (i) => reader.fieldMetadata(i, f),
    heapSize: (i) => reader.heapRef(i, f)?.size ?? 0,
  };
}

/**
 * Whole-file facts a decoder plans with (as FFCV: the whole file, not just `indices`).
 * Only types that plan with something walk the table: on a tabular file of a million
 * records the walk would be most of Loader.open.
 */
export function fieldStats(reader: Reader, f: number): FieldStats {
  const stats = fieldType(reader.fields[f]!.field.type).stats;
  return stats ? stats(fieldTable(reader, f)) : {};
}

/** Scans the metadata of a video_clip field `f` (no heap reads): clip lengths and frame sizes. */
export function clipFieldStats(reader: Reader, f: number): ClipStats {
  return clipStats(fieldTable(reader, f));
}

/** The clip geometry recorded in a file, for giving ClipSimpleDecoder explicit `frames`/`size`. */
export function clipGeometry(reader: Reader, fieldName: string): ClipStats {
  return clipFieldStats(reader, reader.fieldIndex(fieldName));
}

/** FFCV's default decoder for the field's type. */
export function defaultDecoder(field: Field): DecoderSpec {
  const d = fieldType(field.type).defaultDecoder;
  if (!d) throw new PipelineError('BAD_PIPELINE', `no default decoder for field type "${field.type}"; give one in the pipeline`);
  // Custom types' decoder names are outside the built-in union; the loader passes them through as data.
  return d as DecoderSpec;
}

/** `options` choose how image and clip decoders decode JPEGs (default: FFCV's pixels). */
export function createDecoder(spec: DecoderStep, field: Field, stats: FieldStats, options: ImageDecodeOptions = {}): Decoder {
  const make = fieldType(field.type).decoders?.[spec.decoder];
  if (!make) {
    const known = allFieldTypes().some((t) => t.decoders && spec.decoder in t.decoders);
    throw new PipelineError(
      'BAD_PIPELINE',
      known ? `decoder ${spec.decoder} cannot read a ${field.ffcvClass}` : `unknown decoder "${spec.decoder}"`,
    );
  }
  return make(spec, field, stats, decodeKernels(options));
}

import { FIELD_ARGS_SIZE } from '../format/constants.js';
import type { MetadataType } from '../format/record-layout.js';
import type { ImageCodec } from './image-codec.js';

/** What a field's encoder produces for one value; plain data so it can cross threads. */
export interface EncodedValue {
  /** The field's metadata member (metadata.size bytes); the heap pointer is patched in later. */
  meta: Uint8Array;
  /** The heap object to allocate in a page, or null for metadata-only fields. */
  heap: Uint8Array | null;
  /** Bytes of the source file this value came from (build report: compression ratio). */
  sourceBytes?: number;
  /** The source JPEG was stored unchanged (build report). */
  passThrough?: boolean;
}

export interface EncodeContext {
  /** Image work (decode sources, resize, JPEG); injected by the node layer. */
  codec?: ImageCodec;
  /** Uniform [0, 1) draws, seeded per sample so output does not depend on worker count. */
  random: () => number;
  sampleIndex: number;
  /** Where relative source paths resolve from (image folders, lists). */
  baseDir?: string;
  /** Largest object the file can hold (its page size): a field may refuse a sample it can predict is larger before doing the work. */
  maxObjectBytes?: number;
}

export interface DecodeContext {
  /** Only JPEG decoding is needed to read; keeps readers free of sharp. */
  codec?: Pick<ImageCodec, 'decodeJpeg'>;
}

/** JSON-serialisable description of a field: the build config's and workers' currency. */
export interface FieldSpec {
  type: string;
  [option: string]: unknown;
}

/**
 * A field owns its bytes: descriptor arguments, metadata layout, encoder and decoder.
 * Subclasses are pure (no I/O); image work goes through the injected codec.
 */
export abstract class Field<TDecoded = unknown> {
  /** Persisted type id; never renumber. 255 = custom. */
  abstract readonly typeId: number;
  /** The spec `type` this field is registered under. */
  abstract readonly type: string;
  /** The class name FFCV uses for this type (reports, exports). */
  abstract readonly ffcvClass: string;
  abstract readonly metadata: MetadataType;
  /** Offset of the u64 heap pointer inside the metadata member, or null if no heap object. */
  abstract readonly pointerOffset: number | null;

  /** The 1024-byte descriptor arguments; zeros unless the field stores options. */
  encodeArguments(): Uint8Array {
    return new Uint8Array(FIELD_ARGS_SIZE);
  }

  abstract toSpec(): FieldSpec;

  abstract encode(value: unknown, ctx: EncodeContext): EncodedValue | Promise<EncodedValue>;

  /**
   * The heap object's length when the metadata determines it (bytes: stored size,
   * ndarray: shape, raw image: w·h·3); null means "look it up in the allocation table".
   * Preferring metadata sidesteps FFCV's duplicate-pointer bug for empty objects.
   */
  heapSize(_meta: DataView): number | null {
    return null;
  }

  abstract decode(meta: DataView, heap: Uint8Array | null, ctx: DecodeContext): TDecoded;

  /**
   * Byte offsets, inside this field's metadata member, of every u64 holding an absolute
   * file offset. Tools that move pages without decoding (merge) rebase exactly these, so
   * a field with more than one heap object overrides this instead of being special-cased.
   */
  pointerOffsets(): readonly number[] {
    return this.pointerOffset === null ? [] : [this.pointerOffset];
  }

  /** The heap pointer stored in this field's metadata member. */
  heapPointer(meta: DataView): number | null {
    if (this.pointerOffset === null) return null;
    return Number(meta.getBigUint64(this.pointerOffset, true));
  }
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
}

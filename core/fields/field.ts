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
 * What names a field type. Each type declares it once, as one object: its `FieldType`
 * spreads it and its `Field` class takes it in the constructor (`TypedField`), so the
 * registry, the writer's descriptors, `beton inspect` and the exports all read the same
 * declaration.
 */
export interface FieldIdentity {
  /** The spec `type` the type is registered under (build configs, workers). */
  readonly type: string;
  /** Persisted type id; never renumber. 255 = custom (the spec travels in the argument blob). */
  readonly typeId: number;
  /** The class name FFCV uses for this type (reports, exports). */
  readonly ffcvClass: string;
}

/** How a stored image sample keeps its pixels: a JPEG file or raw RGB. */
export type ImageMode = 'jpg' | 'raw';

/**
 * A field owns its bytes: descriptor arguments, metadata layout, encoder and decoder.
 * Subclasses are pure (no I/O); image work goes through the injected codec. Built-in
 * fields extend `TypedField`, which takes the identity from the type's one declaration.
 */
export abstract class Field<TDecoded = unknown> implements FieldIdentity {
  abstract readonly typeId: number;
  abstract readonly type: string;
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

  /**
   * Fields that store images say how the sample whose metadata member this is keeps its
   * pixels (the writer's report and `beton inspect` count them); others leave it out. The
   * byte layout stays the field's own business.
   */
  imageMode?(meta: DataView): ImageMode;

  /** The stored image's size, for fields that store images (as imageMode). */
  imageSize?(meta: DataView): { width: number; height: number };

  /** The heap pointer stored in this field's metadata member. */
  heapPointer(meta: DataView): number | null {
    if (this.pointerOffset === null) return null;
    return Number(meta.getBigUint64(this.pointerOffset, true));
  }
}

/**
 * A field whose `type`, `typeId` and `ffcvClass` are its type's `FieldIdentity`, passed
 * once to the constructor instead of restated as three members of every class.
 */
export abstract class TypedField<TDecoded = unknown> extends Field<TDecoded> {
  readonly type: string;
  readonly typeId: number;
  readonly ffcvClass: string;

  constructor(identity: FieldIdentity) {
    super();
    this.type = identity.type;
    this.typeId = identity.typeId;
    this.ffcvClass = identity.ffcvClass;
  }
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
}

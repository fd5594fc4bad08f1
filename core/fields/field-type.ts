import type { PreviewValue } from '../api/contract.js';
import type { OutputArray, TensorSpec } from '../pipeline/dtypes.js';
import type { Rng } from '../pipeline/rng.js';
import type { Field, FieldIdentity, FieldSpec } from './field.js';
import type { RGBPixels } from './image-codec.js';

/**
 * Everything a field type means, in one object: its identity (`FieldIdentity`, declared
 * once in the field's file and spread here), how to build it, how its decoders read
 * it, what the app shows for a sample, how `beton dump` prints it and how the Python
 * export spells it. Each field file exports one; the registry (registry.ts) is the only
 * place that lists them, and the generic code (loader, reader dump, preview, export) asks
 * the registry instead of switching on type strings. Pure: work that needs native code or
 * sharp reaches a field through the injected kernels and tools below.
 */
export interface FieldType<F extends Field = Field> extends FieldIdentity {
  fromSpec(spec: FieldSpec): F;
  /** Built-ins parse their own argument blob; custom types get their spec back from ours. */
  fromArguments?(args: Uint8Array, where: string): F;
  /** Its encoder uses the injected image codec (source decoding, resize, JPEG): the writer loads it only then. */
  readonly usesImageCodec?: boolean;
  /** Loader decoders by name, and the one a pipeline without a decoder gets. */
  decoders?: { readonly [name: string]: DecoderFactory };
  defaultDecoder?: DecoderStep;
  /** Whole-file facts the decoders plan with (FFCV plans with the whole file, not `indices`). */
  stats?(table: FieldTable): FieldStats;
  /** What the app's dataset view shows for one decoded value (default: short JSON text). */
  preview?(value: unknown, tools: PreviewTools): PreviewValue | Promise<PreviewValue>;
  /** The implementation-neutral form `beton dump` and the golden manifests use (default: `{ type, value }`). */
  canonical?(value: unknown, tools: CanonicalTools): CanonicalValue;
  /** How the Python FFCV export writes this field and its decoders. */
  python?: PythonExport;
}

/** A pipeline's decoder step: its name, then its options (pipeline/spec.ts lists the built-in ones). */
export interface DecoderStep {
  readonly decoder: string;
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

/** Builds a decoder for one field of one file; `step` is the pipeline's decoder step (its options). */
export type DecoderFactory = (step: DecoderStep, field: Field, stats: FieldStats, kernels: DecodeKernels) => Decoder;

/** Plain data (it crosses to the loader's workers); each type reads back what its `stats` wrote. */
export interface FieldStats {
  readonly [key: string]: unknown;
}

/** Field `f`'s column of a file's metadata table, for whole-file stats without a Reader. */
export interface FieldTable {
  readonly numSamples: number;
  /** The whole metadata table; sample i's member starts at `offset + i * stride`. */
  readonly metadata: DataView;
  readonly offset: number;
  readonly stride: number;
  /** Sample i's member as its own view (convenient; slower than reading `metadata`). */
  member(i: number): DataView;
  /** Size of sample i's heap object, 0 when it has none. */
  heapSize(i: number): number;
}

/** A crop of a stored image, in stored pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Crops a stored image (raw RGB or JPEG) and area-resizes the crop into `dst` (outW × outH × 3). */
export interface CropResize {
  run(raw: boolean, bytes: Uint8Array, width: number, height: number, rect: Rect, outW: number, outH: number, dst: Uint8Array): void;
}

/**
 * Native image work decoders need, injected by the loader (loader/image-decode.ts, with
 * libjpeg-turbo and the addon), so field files stay pure.
 */
export interface DecodeKernels {
  /** Decodes a whole JPEG into `dst`; a JPEG of another size than width × height is a corrupt sample. */
  decodeJpegInto(jpeg: Uint8Array, dst: Uint8Array, width: number, height: number): void;
  /** A crop-resizer per decoder (it may keep scratch memory between calls). */
  cropResizer(): CropResize;
}

/** Encoders the dataset view injects (sharp), so previews stay pure. */
export interface PreviewTools {
  /** A PNG thumbnail (fit inside size × size, never enlarged), base64. */
  png(px: RGBPixels, size: number): Promise<string>;
  /** A JPEG thumbnail (fit inside size × size, never enlarged), base64. */
  jpeg(px: RGBPixels, size: number, quality: number): Promise<string>;
  /** The requested thumbnail size. */
  readonly size: number;
}

export type CanonicalValue = string | Record<string, unknown>;

/** What canonical dumps need that fields must not implement (hashing is node:crypto). */
export interface CanonicalTools {
  sha256(bytes: Uint8Array): string;
  hex(bytes: Uint8Array): string;
  /** The sample's heap object exactly as stored (JSON keeps its NUL; the decoded value does not). */
  storedBytes(): Uint8Array;
  /** Makes a decoded value printable with JSON.stringify (bigints, NaN, byte arrays). */
  jsonSafe(value: unknown): unknown;
}

/** A field's part of the generated Python (core/export/python.ts). */
export interface PythonExport {
  /** The FFCV Field constructor for a build-config entry of this type. */
  field(config: Readonly<Record<string, unknown>>): string;
  /** Python for each of this type's decoder steps; `note` adds a comment above the loader. */
  decoders: { readonly [name: string]: (step: DecoderStep, note: (text: string) => void) => string };
  /** Python definitions the code needs first (custom Field and decoder classes), emitted once. */
  prelude?: string;
  /** Comments for the generated DatasetWriter code (what FFCV does differently), e.g. for an option it lacks. */
  buildNotes?(config: Readonly<Record<string, unknown>>): string[];
  /** Custom (type 255) fields: the Python Field class FFCV's `custom_fields=` must name. */
  customClass?: string;
  /**
   * Writes a whole pipeline when the generic step-by-step translation does not fit (a clip
   * field drops image ops); `stepPy` translates one step the generic way.
   */
  pipeline?(name: string, steps: readonly PipelineStepLike[], notes: string[], stepPy: (step: PipelineStepLike) => string[]): string[];
}

/** A pipeline step as the export sees it: a decoder step or an op step. */
export type PipelineStepLike = DecoderStep | { readonly op: string };

import type { BigIntStats } from 'node:fs';
import { BetonError, BetonFormatError } from '../format/errors.js';
import type { Header } from '../format/header.js';
import { setOwn } from '../format/own-keys.js';
import type { RecordLayout } from '../format/record-layout.js';
import type { Regions } from '../format/regions.js';
import type { DecodeContext, Field } from '../fields/field.js';
import type { NamedField } from '../fields/schema.js';
import { RemoteError } from '../remote/errors.js';
import { RemoteByteSource } from '../remote/remote-byte-source.js';
import { openRemoteFile, type RemoteFile, type RemoteSnapshot } from '../remote/remote-file.js';
import { isRemoteUrl } from '../remote/url.js';
import { AllocIndex, type AllocationTable } from './alloc-index.js';
import { FileByteSource, type ByteSource } from './byte-source.js';
import { validateFile, type FileLayout } from './file-validation.js';
import { checkPointers } from './pointer-check.js';

export interface ReaderOptions {
  /** Handlers for custom (type 255) fields, by field name, as FFCV's custom_fields. */
  customFields?: Record<string, Field>;
}

/** Where a sample's heap object lives. */
export interface HeapRef {
  ptr: number;
  size: number;
}

/** A decoded sample: field name → decoded value. */
export type DecodedSample = Record<string, unknown>;

/**
 * Random access to a .beton file. `open` validates the header, the field table, the
 * allocation table and every heap pointer against the file size, so a truncated, foreign
 * or corrupt file fails there with a named error (never a crash, hang or huge allocation).
 */
export class Reader {
  private source: ByteSource | null;
  /** The object store or web server behind a remote file (s3://, https://), else null. */
  remote: RemoteFile | null = null;
  private readonly allocIndex: AllocIndex;
  private readonly ctx: DecodeContext;

  readonly fileSize: number;
  readonly header: Header;
  readonly fields: NamedField[];
  readonly recordLayout: RecordLayout;
  readonly regions: Regions;
  /** The whole metadata table (numSamples × record size). */
  readonly metadata: Uint8Array;
  readonly allocations: AllocationTable;

  private constructor(
    readonly path: string,
    source: ByteSource,
    layout: FileLayout,
    ctx: DecodeContext,
  ) {
    this.source = source;
    this.fileSize = layout.fileSize;
    this.header = layout.header;
    this.fields = layout.fields;
    this.recordLayout = layout.recordLayout;
    this.regions = layout.regions;
    this.metadata = layout.metadata;
    this.allocations = layout.allocations;
    this.allocIndex = new AllocIndex(layout.allocations);
    this.ctx = ctx;
  }

  get numSamples(): number {
    return this.header.numSamples;
  }

  get pageSize(): number {
    return this.header.pageSize;
  }

  /** Number of data pages (P). */
  get numPages(): number {
    const T = this.header.allocTablePtr;
    return T > this.regions.metadataEnd ? (T - this.regions.dataStart) / this.pageSize : 0;
  }

  /** Opens a local path, or an s3:// / https:// URL (docs/remote.md: a few ranged GETs, data pages on demand). */
  static async open(path: string, options: ReaderOptions = {}): Promise<Reader> {
    const { decodeJpeg } = await import('../native/jpeg.js');
    if (!isRemoteUrl(path)) return Reader.openSync(path, options, { codec: { decodeJpeg } });
    const remote = await openRemoteFile(path);
    const reader = Reader.fromSource(new RemoteByteSource(remote.snapshot), options, { codec: { decodeJpeg } });
    reader.remote = remote;
    return reader;
  }

  /** Synchronous open of a local file; `ctx` supplies JPEG decoding (Reader.open wires the native codec). */
  static openSync(path: string, options: ReaderOptions = {}, ctx: DecodeContext = {}): Reader {
    if (isRemoteUrl(path)) throw new RemoteError('REMOTE_BAD_URL', `${path}: a URL is opened with Reader.open (async), not openSync`);
    return Reader.fromSource(new FileByteSource(path), options, ctx);
  }

  /** A remote file from what its open fetched (a loader worker's Reader: no request made). */
  static fromSnapshot(snapshot: RemoteSnapshot, options: ReaderOptions = {}, ctx: DecodeContext = {}): Reader {
    return Reader.fromSource(new RemoteByteSource(snapshot), options, ctx);
  }

  /** Validates the file (file-validation.ts, then every heap pointer: pointer-check.ts); closes the source when it fails. */
  private static fromSource(source: ByteSource, options: ReaderOptions, ctx: DecodeContext): Reader {
    try {
      const reader = new Reader(source.name, source, validateFile(source, options.customFields), ctx);
      checkPointers(reader, reader.allocIndex);
      return reader;
    } catch (e) {
      source.close();
      throw e;
    }
  }

  private checkIndex(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.numSamples) {
      throw new BetonFormatError('SAMPLE_OUT_OF_RANGE', `${this.path}: sample ${i} does not exist (the file has ${this.numSamples})`, {
        file: this.path,
      });
    }
  }

  /** A view of field `f`'s metadata member for sample `i` (no data-region access). */
  fieldMetadata(i: number, f: number): DataView {
    this.checkIndex(i);
    const off = i * this.recordLayout.size + this.recordLayout.offsets[f]!;
    return new DataView(this.metadata.buffer, this.metadata.byteOffset + off, this.fields[f]!.field.metadata.size);
  }

  /** Where field `f` of sample `i` keeps its heap object, or null for metadata-only fields. */
  heapRef(i: number, f: number): HeapRef | null {
    const field = this.fields[f]!.field;
    if (field.pointerOffset === null) return null;
    const meta = this.fieldMetadata(i, f);
    const ptr = field.heapPointer(meta);
    if (ptr === null) return null;
    let size = field.heapSize(meta);
    if (size === 0) return { ptr, size: 0 };
    size ??= this.allocIndex.sizeAt(ptr);
    if (size === null && this.allocations.length === 0) {
      throw new BetonFormatError(
        'TRUNCATED',
        `${this.path}: sample ${i}, field "${this.fields[f]!.name}" has heap data but the allocation table is empty; the file was cut off where the table starts`,
        { file: this.path, sample: i },
      );
    }
    if (size === null) {
      throw new BetonFormatError(
        'BAD_POINTER',
        `${this.path}: sample ${i}, field "${this.fields[f]!.name}" points at byte ${ptr}, where no allocation starts; the allocation table is missing or corrupt`,
        { file: this.path, sample: i },
      );
    }
    return { ptr, size };
  }

  /** The stored bytes of a heap object. */
  readBytes(ref: HeapRef): Uint8Array {
    if (ref.size === 0) return new Uint8Array(0);
    const buf = this.handle().read(ref.ptr, ref.size);
    if (buf.byteLength !== ref.size)
      throw new BetonFormatError('TRUNCATED', `${this.path}: short read at ${ref.ptr}`, { file: this.path, offset: ref.ptr });
    return buf;
  }

  /**
   * A remote file: fetches the pages these samples' heap objects are on, several GETs in
   * flight, so the synchronous reads that follow (read, readField) wait on no request.
   * A local file: nothing to do.
   */
  async prefetch(sampleIds: Iterable<number>): Promise<void> {
    const source = this.source;
    if (!this.remote || !(source instanceof RemoteByteSource)) return;
    const refs: HeapRef[] = [];
    for (const i of sampleIds) {
      this.checkIndex(i);
      for (let f = 0; f < this.fields.length; f++) {
        const ref = this.heapRef(i, f);
        if (ref) refs.push(ref);
      }
    }
    await source.prefetch(refs, this.remote.client);
  }

  /** Raw bytes [offset, offset+length) of the file (fewer at its end): region hashes, copies. */
  readRaw(offset: number, length: number): Uint8Array {
    return this.handle().read(offset, length);
  }

  /** Decodes field `f` (index or name) of sample `i`. */
  readField(i: number, f: number | string): unknown {
    const idx = typeof f === 'number' ? f : this.fieldIndex(f);
    const ref = this.heapRef(i, idx);
    const heap = ref ? this.readBytes(ref) : null;
    try {
      return this.fields[idx]!.field.decode(this.fieldMetadata(i, idx), heap, this.ctx);
    } catch (e) {
      const err = e as Error;
      throw new BetonFormatError('CORRUPT_DATA', `${this.path}: sample ${i}, field "${this.fields[idx]!.name}": ${err.message}`, {
        file: this.path,
        sample: i,
      });
    }
  }

  /** Decodes every field of sample `i`. */
  read(i: number): DecodedSample {
    this.checkIndex(i);
    const out: DecodedSample = {};
    this.fields.forEach(({ name }, f) => setOwn(out, name, this.readField(i, f)));
    return out;
  }

  fieldIndex(name: string): number {
    const i = this.fields.findIndex((f) => f.name === name);
    if (i < 0)
      throw new BetonFormatError('BAD_FIELD', `${this.path}: no field "${name}" (fields: ${this.fields.map((f) => f.name).join(', ')})`, {
        file: this.path,
      });
    return i;
  }

  private handle(): ByteSource {
    if (this.source === null)
      throw new BetonError('READER_CLOSED', `${this.path}: the reader is closed`, {
        hint: 'Open the file again (Reader.open) to read from it.',
      });
    return this.source;
  }

  /** fstat of the open local file (null for a remote one): the check ties its result to these bytes (core/reader/file-identity.ts). */
  localStat(): BigIntStats | null {
    return this.source?.stat?.() ?? null;
  }

  close(): void {
    this.source?.close();
    this.source = null;
  }
}

import type { BigIntStats } from 'node:fs';
import { ALLOC_ENTRY_SIZE, FIELD_DESCRIPTOR_SIZE, HEADER_SIZE, MAX_PAGE_SIZE, MIN_READER_PAGE_SIZE } from '../format/constants.js';
import { decodeDescriptor, descriptorOffset, strayDescriptorByte } from '../format/descriptor.js';
import { BetonError, BetonFormatError } from '../format/errors.js';
import { decodeHeader, type Header } from '../format/header.js';
import { recordLayout, type RecordLayout } from '../format/record-layout.js';
import { isPowerOfTwo, regions, type Regions } from '../format/regions.js';
import type { DecodeContext, Field } from '../fields/field.js';
import { fieldFromDescriptor } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import { AllocIndex, AllocationTable } from './alloc-index.js';
import { readU64 } from '../format/u64.js';
import { RemoteError } from '../remote/errors.js';
import { RemoteByteSource } from '../remote/remote-byte-source.js';
import { openRemoteFile, type RemoteFile, type RemoteSnapshot } from '../remote/remote-file.js';
import { isRemoteUrl } from '../remote/url.js';
import { FileByteSource, type ByteSource } from './byte-source.js';
import { setOwn } from '../format/own-keys.js';

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

  private constructor(
    readonly path: string,
    source: ByteSource,
    readonly fileSize: number,
    readonly header: Header,
    readonly fields: NamedField[],
    readonly recordLayout: RecordLayout,
    readonly regions: Regions,
    /** The whole metadata table (numSamples × record size). */
    readonly metadata: Uint8Array,
    readonly allocations: AllocationTable,
    ctx: DecodeContext,
  ) {
    this.source = source;
    this.allocIndex = new AllocIndex(allocations);
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

  private static fromSource(source: ByteSource, options: ReaderOptions, ctx: DecodeContext): Reader {
    try {
      return Reader.validate(source.name, source, options, ctx);
    } catch (e) {
      source.close();
      throw e;
    }
  }

  private static validate(file: string, source: ByteSource, options: ReaderOptions, ctx: DecodeContext): Reader {
    const size = source.size;
    const read = (offset: number, length: number): Uint8Array => {
      const buf = source.read(offset, length);
      if (buf.byteLength !== length)
        throw new BetonFormatError('TRUNCATED', `${file}: expected ${length} bytes at offset ${offset}, file ends at ${size}`, {
          file,
          offset,
        });
      return buf;
    };
    const err = (code: ConstructorParameters<typeof BetonFormatError>[0], msg: string, offset?: number): never => {
      throw new BetonFormatError(code, `${file}: ${msg}`, { file, ...(offset !== undefined ? { offset } : {}) });
    };

    const header = decodeHeader(read(0, Math.min(size, HEADER_SIZE)), file);
    const ps = header.pageSize;
    if (!isPowerOfTwo(ps) || ps < MIN_READER_PAGE_SIZE || ps > MAX_PAGE_SIZE) {
      err(
        'BAD_PAGE_SIZE',
        `page size ${ps} is not a power of two between ${MIN_READER_PAGE_SIZE} and 2^31; the header is corrupt or this is not a .beton file`,
        4,
      );
    }
    if (header.numFields === 0) err('BAD_HEADER', 'the header declares 0 fields; the file is corrupt', 2);
    const tableEnd = HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * header.numFields;
    if (tableEnd > size) {
      err(
        'TRUNCATED',
        `the field table of ${header.numFields} fields ends at byte ${tableEnd}, past the end of the file (${size} bytes); the file is truncated`,
        HEADER_SIZE,
      );
    }
    const table = read(HEADER_SIZE, tableEnd - HEADER_SIZE);
    const fields: NamedField[] = [];
    const names = new Set<string>();
    for (let i = 0; i < header.numFields; i++) {
      const off = descriptorOffset(i) - HEADER_SIZE;
      const entry = table.subarray(off, off + FIELD_DESCRIPTOR_SIZE);
      const d = decodeDescriptor(entry, i, file);
      // A caller's handler owns the arguments of the field it replaces.
      const stray = options.customFields?.[d.name] ? -1 : strayDescriptorByte(entry);
      if (stray >= 0) {
        err(
          'BAD_FIELD',
          `field ${i} ("${d.name}", type ${d.typeId}): byte ${stray} of its descriptor is ${entry[stray]}, where FFCV always writes 0; the field table is corrupt or num_fields (${header.numFields}) is wrong`,
          descriptorOffset(i) + stray,
        );
      }
      if (names.has(d.name)) err('DUPLICATE_FIELD', `field name "${d.name}" appears twice in the field table`, descriptorOffset(i));
      names.add(d.name);
      fields.push({ name: d.name, field: fieldFromDescriptor(d, options.customFields, file) });
    }

    const layout = recordLayout(fields.map((f) => f.field.metadata));
    const N = header.numSamples;
    const T = header.allocTablePtr;
    const reg = regions(fields.length, N, layout.size, ps);
    if (T > size)
      err('TRUNCATED', `the allocation table should start at byte ${T} but the file has only ${size} bytes; the file is truncated`, 16);
    if (reg.metadataEnd > T) {
      err(
        'BAD_HEADER',
        `num_samples = ${N} implies metadata up to byte ${reg.metadataEnd}, beyond the allocation table at ${T}; num_samples or alloc_table_ptr is wrong`,
        8,
      );
    }
    if (T !== reg.metadataEnd && (T < reg.dataStart || (T - reg.dataStart) % ps !== 0)) {
      err(
        'BAD_HEADER',
        `alloc_table_ptr ${T} is neither the end of the metadata (${reg.metadataEnd}) nor a page boundary after the first page (${reg.dataStart})`,
        16,
      );
    }
    if ((size - T) % ALLOC_ENTRY_SIZE !== 0) {
      err(
        'TRUNCATED',
        `the allocation table (${size - T} bytes from ${T}) is not a whole number of 24-byte entries; the file is truncated or has trailing bytes`,
        T,
      );
    }
    const metadata = read(reg.metadata.offset, reg.metadata.size);
    checkRecordPadding(metadata, layout, fields, N, (i, at, v) =>
      err(
        'BAD_HEADER',
        `sample ${i}: byte ${at} of its ${layout.size}-byte metadata record is alignment padding, always 0 in files FFCV writes, but holds ${v}; num_fields, the field types or num_samples do not match the metadata, or the metadata is corrupt`,
        reg.metadata.offset + i * layout.size + at,
      ),
    );
    const tableBytes = read(T, size - T);
    const count = tableBytes.byteLength / ALLOC_ENTRY_SIZE;
    const view = new DataView(tableBytes.buffer, tableBytes.byteOffset, tableBytes.byteLength);
    const allocations = new AllocationTable(new Float64Array(count), new Float64Array(count), new Float64Array(count));
    for (let k = 0; k < count; k++) {
      const off = k * ALLOC_ENTRY_SIZE;
      const sampleId = readU64(view, off, file);
      const ptr = readU64(view, off + 8, file);
      const asize = readU64(view, off + 16, file);
      if (sampleId >= N)
        err(
          'BAD_ALLOC_TABLE',
          `allocation entry ${k} names sample ${sampleId}, but the header says num_samples = ${N}; num_samples or the table is corrupt`,
          T + off,
        );
      if (asize > 0 && (ptr < reg.dataStart || ptr + asize > T)) {
        err(
          'BAD_ALLOC_TABLE',
          `allocation entry ${k} spans bytes ${ptr}..${ptr + asize}, outside the data pages (${reg.dataStart}..${T})`,
          T + off,
        );
      }
      allocations.sampleIds[k] = sampleId;
      allocations.ptrs[k] = ptr;
      allocations.sizes[k] = asize;
    }
    // FFCV allocates exactly one object per heap field per sample (even when empty), so a
    // shorter table means the file lost its tail at an entry boundary.
    const heapFields = fields.filter((f) => f.field.pointerOffset !== null && f.field.typeId !== 255).length;
    if (allocations.length < N * heapFields) {
      err(
        'TRUNCATED',
        `the allocation table has ${allocations.length} entries but the samples own ${N * heapFields} heap objects; the file is truncated`,
        T,
      );
    }
    // With built-in fields only, the count is exact, per sample too: more entries, or a
    // sample owning more, means the table or num_fields/num_samples is wrong. (A custom
    // field may allocate any number of objects.)
    if (fields.every((f) => f.field.typeId !== 255)) {
      if (allocations.length > N * heapFields) {
        err(
          'BAD_ALLOC_TABLE',
          `the allocation table has ${allocations.length} entries but the ${N} samples own ${N * heapFields} heap objects (${heapFields} per sample); the table, num_fields or num_samples is wrong`,
          T,
        );
      }
      const owned = heapFields < 255 ? new Uint8Array(N) : new Uint32Array(N);
      for (let k = 0; k < count; k++) {
        const id = allocations.sampleIds[k]!;
        if (++owned[id]! > heapFields) {
          err(
            'BAD_ALLOC_TABLE',
            `allocation entry ${k}: sample ${id} owns more than its ${heapFields} heap objects; the allocation table is corrupt`,
            T + k * ALLOC_ENTRY_SIZE,
          );
        }
      }
    }
    // Pages are only ever taken for an object of at least one byte: without one, the table
    // follows the metadata directly (FFCV's writer never pads a file that has no page).
    if (T !== reg.metadataEnd && !allocations.sizes.some((s) => s > 0)) {
      err(
        'BAD_HEADER',
        `alloc_table_ptr is ${T}, but no heap object has any bytes, so the table must follow the metadata at ${reg.metadataEnd}; num_fields, num_samples or alloc_table_ptr is wrong`,
        16,
      );
    }
    const reader = new Reader(file, source, size, header, fields, layout, reg, metadata, allocations, ctx);
    reader.checkPointers();
    return reader;
  }

  /**
   * Every heap object of every sample lies inside the data pages and within one page; no
   * two objects overlap; and, for built-in fields, the allocation table agrees with the
   * metadata: an entry starts at the pointer, belongs to that sample and has the size the
   * metadata implies (bytes/JSON size, ndarray shape, raw image w·h·3). FFCV writes both
   * from the same allocation, so a mismatch means a shifted record layout (num_fields or a
   * field type edited), an edited pointer/size/width/height, or a corrupt table.
   */
  private checkPointers(): void {
    const T = this.header.allocTablePtr;
    const D0 = this.regions.dataStart;
    const overlap = this.allocIndex.firstOverlap();
    if (overlap) {
      const [ptr, size, next] = overlap;
      throw new BetonFormatError(
        'BAD_ALLOC_TABLE',
        `${this.path}: the allocation table has an object at ${ptr} of ${size} bytes overlapping the next one at ${next}; the table is corrupt`,
        { file: this.path, offset: T },
      );
    }
    // Metadata-only fields (int, float) own no object: a tabular file skips the whole walk.
    const heapFields = this.fields.flatMap((d, f) => (d.field.pointerOffset === null ? [] : [f]));
    if (heapFields.length === 0) return;
    const pageOf = (p: number): number => Math.floor(p / this.pageSize);
    for (let i = 0; i < this.numSamples; i++) {
      for (const f of heapFields) {
        const ref = this.heapRef(i, f);
        if (!ref || ref.size === 0) continue;
        const bad = (why: string): never => {
          throw new BetonFormatError('BAD_POINTER', `${this.path}: sample ${i}, field "${this.fields[f]!.name}": ${why}`, {
            file: this.path,
            sample: i,
            offset: this.regions.metadata.offset + i * this.recordLayout.size + this.recordLayout.offsets[f]!,
          });
        };
        if (ref.ptr < D0 || ref.ptr + ref.size > T || pageOf(ref.ptr) !== pageOf(ref.ptr + ref.size - 1)) {
          bad(`object at ${ref.ptr} (${ref.size} bytes) is outside the data pages (${D0}..${T}) or crosses a page; the file is corrupt`);
        }
        // A custom field may point into an object, or own several: only built-ins are held to it.
        if (this.fields[f]!.field.typeId === 255) continue;
        const k = this.allocIndex.indexOf(ref.ptr);
        if (k < 0) bad(`points at byte ${ref.ptr}, where no allocation starts; the metadata or the allocation table is corrupt`);
        if (this.allocIndex.ownerOf(k) !== i)
          bad(
            `the object at ${ref.ptr} belongs to sample ${this.allocIndex.ownerOf(k)} in the allocation table; num_fields, a field type or the metadata is wrong`,
          );
        if (this.allocIndex.sizeOf(k) !== ref.size)
          bad(
            `the metadata implies an object of ${ref.size} bytes at ${ref.ptr}, the allocation table says ${this.allocIndex.sizeOf(k)}; the metadata (size, shape, width/height) or the table is corrupt`,
          );
      }
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

/**
 * Calls `bad(sample, byteInRecord, value)` for the first non-zero alignment padding byte of
 * the metadata records. numpy pads members to their alignment (an RGB image's 13 bytes
 * before an int's 8-aligned slot, tail padding to the record's alignment); FFCV's writer
 * fills its metadata from zeroed shared memory, so padding is always 0. Data there means
 * the record layout rebuilt from the field table is not the one the file was written with.
 */
function checkRecordPadding(
  metadata: Uint8Array,
  layout: RecordLayout,
  fields: readonly NamedField[],
  n: number,
  bad: (sample: number, at: number, value: number) => never,
): void {
  const covered = new Uint8Array(layout.size);
  fields.forEach((f, k) => covered.fill(1, layout.offsets[k]!, layout.offsets[k]! + f.field.metadata.size));
  const pad: number[] = [];
  covered.forEach((c, at) => c || pad.push(at));
  if (pad.length === 0) return;
  for (let i = 0, base = 0; i < n; i++, base += layout.size) {
    for (const at of pad) if (metadata[base + at] !== 0) bad(i, at, metadata[base + at]!);
  }
}

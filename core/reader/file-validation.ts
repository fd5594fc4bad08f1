import { ALLOC_ENTRY_SIZE, FIELD_DESCRIPTOR_SIZE, HEADER_SIZE, MAX_PAGE_SIZE, MIN_READER_PAGE_SIZE } from '../format/constants.js';
import { decodeDescriptor, descriptorOffset, strayDescriptorByte } from '../format/descriptor.js';
import { BetonFormatError } from '../format/errors.js';
import { decodeHeader, type Header } from '../format/header.js';
import { recordLayout, type RecordLayout } from '../format/record-layout.js';
import { isPowerOfTwo, regions, type Regions } from '../format/regions.js';
import { readU64 } from '../format/u64.js';
import type { Field } from '../fields/field.js';
import { fieldFromDescriptor } from '../fields/registry.js';
import type { NamedField } from '../fields/schema.js';
import { AllocationTable } from './alloc-index.js';
import type { ByteSource } from './byte-source.js';

/** A file's structure once validated: everything a Reader keeps besides its byte source. */
export interface FileLayout {
  fileSize: number;
  header: Header;
  fields: NamedField[];
  recordLayout: RecordLayout;
  regions: Regions;
  /** The whole metadata table (numSamples × record size). */
  metadata: Uint8Array;
  allocations: AllocationTable;
}

type FormatCode = ConstructorParameters<typeof BetonFormatError>[0];

/** The file being checked: exact reads (a short one is TRUNCATED) and its errors, each naming the file and offset. */
interface Check {
  file: string;
  size: number;
  read(offset: number, length: number): Uint8Array;
  fail(code: FormatCode, msg: string, offset?: number): never;
}

/**
 * Validates the header, the field table, the placement of the metadata and the allocation
 * table, the metadata's padding and every allocation entry against the file size, so a
 * truncated, foreign or corrupt file fails here with a named error (never a crash, hang or
 * huge allocation). The heap pointers are checked against the table once a Reader can
 * resolve them (pointer-check.ts). `customFields`: handlers for type-255 fields, by name.
 */
export function validateFile(source: ByteSource, customFields?: Record<string, Field>): FileLayout {
  const file = source.name;
  const size = source.size;
  const c: Check = {
    file,
    size,
    read: (offset, length) => {
      const buf = source.read(offset, length);
      if (buf.byteLength !== length)
        throw new BetonFormatError('TRUNCATED', `${file}: expected ${length} bytes at offset ${offset}, file ends at ${size}`, {
          file,
          offset,
        });
      return buf;
    },
    fail: (code, msg, offset) => {
      throw new BetonFormatError(code, `${file}: ${msg}`, { file, ...(offset !== undefined ? { offset } : {}) });
    },
  };
  const header = readHeader(c);
  const fields = readFieldTable(c, header, customFields);
  const layout = recordLayout(fields.map((f) => f.field.metadata));
  const reg = regions(fields.length, header.numSamples, layout.size, header.pageSize);
  checkPlacement(c, header, reg);
  const metadata = c.read(reg.metadata.offset, reg.metadata.size);
  checkRecordPadding(metadata, layout, fields, header.numSamples, (i, at, v) =>
    c.fail(
      'BAD_HEADER',
      `sample ${i}: byte ${at} of its ${layout.size}-byte metadata record is alignment padding, always 0 in files FFCV writes, but holds ${v}; num_fields, the field types or num_samples do not match the metadata, or the metadata is corrupt`,
      reg.metadata.offset + i * layout.size + at,
    ),
  );
  const allocations = readAllocations(c, header, reg);
  checkAllocationCounts(c, header, reg, fields, allocations);
  return { fileSize: size, header, fields, recordLayout: layout, regions: reg, metadata, allocations };
}

/** The header, with a page size a .beton can have and at least one field. */
function readHeader(c: Check): Header {
  const header = decodeHeader(c.read(0, Math.min(c.size, HEADER_SIZE)), c.file);
  const ps = header.pageSize;
  if (!isPowerOfTwo(ps) || ps < MIN_READER_PAGE_SIZE || ps > MAX_PAGE_SIZE) {
    c.fail(
      'BAD_PAGE_SIZE',
      `page size ${ps} is not a power of two between ${MIN_READER_PAGE_SIZE} and 2^31; the header is corrupt or this is not a .beton file`,
      4,
    );
  }
  if (header.numFields === 0) c.fail('BAD_HEADER', 'the header declares 0 fields; the file is corrupt', 2);
  return header;
}

/** The field table: every descriptor decoded (FFCV's zero bytes where it writes them), names unique. */
function readFieldTable(c: Check, header: Header, customFields: Record<string, Field> | undefined): NamedField[] {
  const tableEnd = HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * header.numFields;
  if (tableEnd > c.size) {
    c.fail(
      'TRUNCATED',
      `the field table of ${header.numFields} fields ends at byte ${tableEnd}, past the end of the file (${c.size} bytes); the file is truncated`,
      HEADER_SIZE,
    );
  }
  const table = c.read(HEADER_SIZE, tableEnd - HEADER_SIZE);
  const fields: NamedField[] = [];
  const names = new Set<string>();
  for (let i = 0; i < header.numFields; i++) {
    const off = descriptorOffset(i) - HEADER_SIZE;
    const entry = table.subarray(off, off + FIELD_DESCRIPTOR_SIZE);
    const d = decodeDescriptor(entry, i, c.file);
    // A caller's handler owns the arguments of the field it replaces.
    const stray = customFields?.[d.name] ? -1 : strayDescriptorByte(entry);
    if (stray >= 0) {
      c.fail(
        'BAD_FIELD',
        `field ${i} ("${d.name}", type ${d.typeId}): byte ${stray} of its descriptor is ${entry[stray]}, where FFCV always writes 0; the field table is corrupt or num_fields (${header.numFields}) is wrong`,
        descriptorOffset(i) + stray,
      );
    }
    if (names.has(d.name)) c.fail('DUPLICATE_FIELD', `field name "${d.name}" appears twice in the field table`, descriptorOffset(i));
    names.add(d.name);
    fields.push({ name: d.name, field: fieldFromDescriptor(d, customFields, c.file) });
  }
  return fields;
}

/** The allocation table starts in the file, after the metadata, at the metadata's end or a page boundary, and is whole entries. */
function checkPlacement(c: Check, header: Header, reg: Regions): void {
  const N = header.numSamples;
  const T = header.allocTablePtr;
  if (T > c.size)
    c.fail('TRUNCATED', `the allocation table should start at byte ${T} but the file has only ${c.size} bytes; the file is truncated`, 16);
  if (reg.metadataEnd > T) {
    c.fail(
      'BAD_HEADER',
      `num_samples = ${N} implies metadata up to byte ${reg.metadataEnd}, beyond the allocation table at ${T}; num_samples or alloc_table_ptr is wrong`,
      8,
    );
  }
  if (T !== reg.metadataEnd && (T < reg.dataStart || (T - reg.dataStart) % header.pageSize !== 0)) {
    c.fail(
      'BAD_HEADER',
      `alloc_table_ptr ${T} is neither the end of the metadata (${reg.metadataEnd}) nor a page boundary after the first page (${reg.dataStart})`,
      16,
    );
  }
  if ((c.size - T) % ALLOC_ENTRY_SIZE !== 0) {
    c.fail(
      'TRUNCATED',
      `the allocation table (${c.size - T} bytes from ${T}) is not a whole number of 24-byte entries; the file is truncated or has trailing bytes`,
      T,
    );
  }
}

/** The allocation table, each entry naming a sample of the file and lying in the data pages. */
function readAllocations(c: Check, header: Header, reg: Regions): AllocationTable {
  const N = header.numSamples;
  const T = header.allocTablePtr;
  const tableBytes = c.read(T, c.size - T);
  const count = tableBytes.byteLength / ALLOC_ENTRY_SIZE;
  const view = new DataView(tableBytes.buffer, tableBytes.byteOffset, tableBytes.byteLength);
  const allocations = new AllocationTable(new Float64Array(count), new Float64Array(count), new Float64Array(count));
  for (let k = 0; k < count; k++) {
    const off = k * ALLOC_ENTRY_SIZE;
    const sampleId = readU64(view, off, c.file);
    const ptr = readU64(view, off + 8, c.file);
    const asize = readU64(view, off + 16, c.file);
    if (sampleId >= N)
      c.fail(
        'BAD_ALLOC_TABLE',
        `allocation entry ${k} names sample ${sampleId}, but the header says num_samples = ${N}; num_samples or the table is corrupt`,
        T + off,
      );
    if (asize > 0 && (ptr < reg.dataStart || ptr + asize > T)) {
      c.fail(
        'BAD_ALLOC_TABLE',
        `allocation entry ${k} spans bytes ${ptr}..${ptr + asize}, outside the data pages (${reg.dataStart}..${T})`,
        T + off,
      );
    }
    allocations.sampleIds[k] = sampleId;
    allocations.ptrs[k] = ptr;
    allocations.sizes[k] = asize;
  }
  return allocations;
}

/** As many heap objects as the fields own (exactly, and per sample, with built-in fields only), and pages only for bytes. */
function checkAllocationCounts(c: Check, header: Header, reg: Regions, fields: readonly NamedField[], allocations: AllocationTable): void {
  const N = header.numSamples;
  const T = header.allocTablePtr;
  // FFCV allocates exactly one object per heap field per sample (even when empty), so a
  // shorter table means the file lost its tail at an entry boundary.
  const heapFields = fields.filter((f) => f.field.pointerOffset !== null && f.field.typeId !== 255).length;
  if (allocations.length < N * heapFields) {
    c.fail(
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
      c.fail(
        'BAD_ALLOC_TABLE',
        `the allocation table has ${allocations.length} entries but the ${N} samples own ${N * heapFields} heap objects (${heapFields} per sample); the table, num_fields or num_samples is wrong`,
        T,
      );
    }
    const owned = heapFields < 255 ? new Uint8Array(N) : new Uint32Array(N);
    for (let k = 0; k < allocations.length; k++) {
      const id = allocations.sampleIds[k]!;
      if (++owned[id]! > heapFields) {
        c.fail(
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
    c.fail(
      'BAD_HEADER',
      `alloc_table_ptr is ${T}, but no heap object has any bytes, so the table must follow the metadata at ${reg.metadataEnd}; num_fields, num_samples or alloc_table_ptr is wrong`,
      16,
    );
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

import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../format/constants.js';
import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import type { Header } from '../format/header.js';
import type { Field } from '../fields/field.js';
import { Reader } from '../reader/reader.js';
import { openRegular } from '../native/regular-file.js';
import { RemoteInputFile } from '../remote/remote-input-file.js';
import { type InputFile, readFully } from './merge-io.js';

// A merge's inputs (merge.ts): each opened once and fully validated, described by what the
// copies need, and checked to share the first one's fields and page size.

/** What the merge needs to know about one input, taken from a fully validated open. */
export interface Input {
  path: string;
  fh: InputFile;
  header: Header;
  fileSize: number;
  descriptors: Uint8Array;
  metadataOffset: number;
  dataStart: number;
  pages: number;
  /** Field names and types, for the schema check's messages. */
  fields: Array<{ name: string; type: string; typeId: number }>;
  recordSize: number;
  /** Absolute offsets, within a metadata record, of every u64 pointer. */
  pointerOffsets: number[];
}

export async function openInput(path: string, customFields: Record<string, Field> | undefined): Promise<Input> {
  // Our own handle first: the merge copies through it, so a file replaced after the
  // validation below cannot slip in unvalidated bytes under the same name.
  const { fh, size: fileSize } = await openRegular(path, '.beton file');
  try {
    // Full validation (header, field table, allocation table, every pointer): a truncated
    // or foreign input fails here with its name, before any output exists.
    const reader = Reader.openSync(path, customFields ? { customFields } : {});
    try {
      if (reader.fileSize !== fileSize) {
        throw new BetonFormatError(
          'CORRUPT_DATA',
          `${path}: the file changed while it was being opened (${fileSize} then ${reader.fileSize} bytes); retry once nothing writes to it`,
          { file: path },
        );
      }
      return await describeInput(path, fh, reader, fileSize);
    } finally {
      reader.close();
    }
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/** An opened, validated input: what the merge reads from its Reader and its handle. */
async function describeInput(path: string, fh: InputFile, reader: Reader, fileSize: number): Promise<Input> {
  const F = reader.fields.length;
  const descriptors = new Uint8Array(F * FIELD_DESCRIPTOR_SIZE);
  await readFully(fh, descriptors, HEADER_SIZE, path);
  const pointerOffsets: number[] = [];
  reader.fields.forEach(({ field }, f) => {
    for (const p of field.pointerOffsets()) pointerOffsets.push(reader.recordLayout.offsets[f]! + p);
  });
  return {
    path,
    fh,
    header: reader.header,
    fileSize,
    descriptors,
    metadataOffset: reader.regions.metadata.offset,
    dataStart: reader.regions.dataStart,
    pages: reader.numPages,
    fields: reader.fields.map(({ name, field }) => ({ name, type: field.type, typeId: field.typeId })),
    recordSize: reader.recordLayout.size,
    pointerOffsets,
  };
}

/**
 * A remote input (s3:// or https://), read in place: the same full validation as a local
 * file (Reader.open), then every copy below is a ranged GET pinned to the version that was
 * validated, so the local scratch is the copy's chunks, not the input.
 */
export async function openRemoteInput(url: string, customFields: Record<string, Field> | undefined): Promise<Input> {
  const reader = await Reader.open(url, customFields ? { customFields } : {});
  try {
    const remote = reader.remote!;
    const fh = new RemoteInputFile(remote.client, remote.snapshot.size, remote.snapshot.etag);
    return await describeInput(url, fh, reader, remote.snapshot.size);
  } finally {
    reader.close();
  }
}

/** Same page size and byte-identical field tables (names, type ids, argument blobs), or a one-line refusal naming both files. */
export function checkCompatible(inputs: readonly Input[]): void {
  const a = inputs[0]!;
  for (const b of inputs.slice(1)) {
    const why = (what: string): never => {
      throw new BetonEncodeError(
        'BAD_SCHEMA',
        `cannot merge ${b.path} into ${a.path}: ${what}; merge needs files built with the same fields and page size`,
      );
    };
    if (b.header.pageSize !== a.header.pageSize)
      why(`page size ${b.header.pageSize} vs ${a.header.pageSize} bytes (rebuild one with --page-size ${a.header.pageSize})`);
    const fa = a.fields.map((f) => `${f.name}:${f.type}`).join(', ');
    const fb = b.fields.map((f) => `${f.name}:${f.type}`).join(', ');
    if (b.fields.length !== a.fields.length) why(`fields [${fb}] vs [${fa}]`);
    for (let f = 0; f < a.fields.length; f++) {
      const x = a.fields[f]!;
      const y = b.fields[f]!;
      if (x.name !== y.name || x.typeId !== y.typeId || x.type !== y.type)
        why(`field ${f} is "${y.name}" (${y.type}) vs "${x.name}" (${x.type})`);
      const off = f * FIELD_DESCRIPTOR_SIZE;
      if (!sameBytes(a.descriptors.subarray(off, off + FIELD_DESCRIPTOR_SIZE), b.descriptors.subarray(off, off + FIELD_DESCRIPTOR_SIZE))) {
        why(`field "${x.name}" (${x.type}) has different arguments (e.g. another dtype or shape)`);
      }
    }
  }
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  return x.byteLength === y.byteLength && Buffer.compare(x, y) === 0;
}

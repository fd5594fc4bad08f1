import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../format/constants.js';
import { decodeHeader } from '../format/header.js';
import { openRegularSync } from '../native/regular-file.js';
import type { Reader } from './reader.js';

/** Read size while hashing the allocation table (it is 24 bytes per heap object: 30 MiB for ImageNet). */
const CHUNK = 1 << 20;

/** Bytes [offset, offset+length) of the file, fewer only at its end. */
type ReadAt = (offset: number, length: number) => Uint8Array;

/** The two identities a recorded run keeps of its dataset (DatasetInfo's headerSha256 and contentSha256). */
export interface DatasetHashes {
  /** sha256 of the header and the field table. */
  headerSha256: string;
  /** sha256 of the header, the field table and the allocation table. */
  contentSha256: string;
}

/**
 * The one recipe. What identifies a dataset's content, cheaply: sha256 of the header, the
 * field table and the allocation table. A path is not an identity (a file rebuilt in place
 * with other settings is another dataset), nor is the header alone (a rebuild with another
 * JPEG quality or max resolution keeps it, but every object's size in the allocation table
 * changes). The data pages are not read: hashing them would cost as much as reading the file.
 * Stored runs and sidecar manifests compare these values: the bytes hashed, and their order,
 * must never change.
 */
function hashesOf(read: ReadAt, numFields: number, allocTablePtr: number, size: number): DatasetHashes {
  const head = read(0, HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * numFields);
  const content = createHash('sha256').update(head);
  for (let pos = Math.min(allocTablePtr, size); pos < size;) {
    const bytes = read(pos, Math.min(CHUNK, size - pos));
    if (bytes.byteLength === 0) break;
    content.update(bytes);
    pos += bytes.byteLength;
  }
  return { headerSha256: createHash('sha256').update(head).digest('hex'), contentSha256: content.digest('hex') };
}

/**
 * Both hashes of an open Reader's file (local or remote), through the Reader's own reads: a
 * remote file's tables are in what its open fetched, so no request is made.
 */
export function readerHashes(reader: Reader): DatasetHashes {
  return hashesOf((offset, length) => reader.readRaw(offset, length), reader.fields.length, reader.header.allocTablePtr, reader.fileSize);
}

/**
 * The content hash of a local file, reading the tables in place (no Reader: this runs once
 * per recorded build or loader state, and must not validate the whole file again).
 */
export function datasetContentSha256(file: string): string {
  const { fd } = openRegularSync(file, '.beton file');
  try {
    const read: ReadAt = (offset, length) => {
      const buf = Buffer.alloc(length);
      return buf.subarray(0, readSync(fd, buf, 0, length, offset));
    };
    const h = decodeHeader(read(0, HEADER_SIZE), file);
    return hashesOf(read, h.numFields, h.allocTablePtr, fstatSync(fd).size).contentSha256;
  } finally {
    closeSync(fd);
  }
}

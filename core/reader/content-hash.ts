import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../format/constants.js';
import { decodeHeader } from '../format/header.js';
import { openRegularSync } from '../native/regular-file.js';

/** Read size while hashing the allocation table (it is 24 bytes per heap object: 30 MiB for ImageNet). */
const CHUNK = 1 << 20;

/**
 * What identifies a dataset's content, cheaply: sha256 of the header, the field table and
 * the allocation table. A path is not an identity (a file rebuilt in place with other
 * settings is another dataset), nor is the header alone (a rebuild with another JPEG
 * quality or max resolution keeps it, but every object's size in the allocation table
 * changes). The data pages are not read: hashing them would cost as much as reading the file.
 * Reads the table in place (no Reader: this runs once per recorded run, and must not
 * validate the whole file again).
 */
export function datasetContentSha256(file: string): string {
  const { fd } = openRegularSync(file, '.beton file');
  try {
    const head = Buffer.alloc(HEADER_SIZE);
    readSync(fd, head, 0, HEADER_SIZE, 0);
    const h = decodeHeader(head, file);
    const size = fstatSync(fd).size;
    const hash = createHash('sha256');
    const fields = Buffer.alloc(HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * h.numFields);
    hash.update(fields.subarray(0, readSync(fd, fields, 0, fields.length, 0)));
    const buf = Buffer.alloc(CHUNK);
    for (let pos = Math.min(h.allocTablePtr, size); pos < size;) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      pos += n;
    }
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}

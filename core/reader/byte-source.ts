import { closeSync, fstatSync, readSync, type BigIntStats } from 'node:fs';
import { BetonError } from '../format/errors.js';
import { openRegularSync } from '../native/regular-file.js';

/**
 * Where a Reader's bytes come from: a local file (positional reads on a descriptor) or a
 * remote object (remote/remote-byte-source.ts: the bytes fetched at open, then whole pages
 * on demand). `read` returns fewer bytes only at the end of the file.
 */
export interface ByteSource {
  readonly name: string;
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
  close(): void;
  /** The open file's status (a local file only): what identifies the bytes this source reads. */
  stat?(): BigIntStats;
}

export class FileByteSource implements ByteSource {
  private fd: number | null;
  readonly size: number;

  constructor(readonly name: string) {
    // A FIFO or device is refused before any read blocks (issue 19: one regular-file check at every input).
    const { fd, size } = openRegularSync(name, '.beton file');
    this.fd = fd;
    this.size = size;
  }

  read(offset: number, length: number): Uint8Array {
    if (this.fd === null)
      throw new BetonError('READER_CLOSED', `${this.name}: the reader is closed`, {
        hint: 'Open the file again (Reader.open) to read from it.',
      });
    const buf = new Uint8Array(length);
    const n = readSync(this.fd, buf, 0, length, offset);
    return n === length ? buf : buf.subarray(0, n);
  }

  stat(): BigIntStats {
    if (this.fd === null) throw new BetonError('READER_CLOSED', `${this.name}: the reader is closed`);
    return fstatSync(this.fd, { bigint: true });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

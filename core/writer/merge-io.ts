import type { FileHandle } from 'node:fs/promises';
import { BetonFormatError } from '../format/errors.js';
import type { OutputFile } from './output-file.js';

// Whole reads and writes for the merge (merge.ts): a short read means the input was cut
// short under it.

/** What the merge reads an input through: a local file's handle, or ranged GETs (remote-input-file.ts). */
export type InputFile = Pick<FileHandle, 'close'> & {
  read(buf: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
};

export async function readFully(fh: InputFile, buf: Uint8Array, pos: number, file: string): Promise<void> {
  for (let got = 0; got < buf.byteLength;) {
    const { bytesRead } = await fh.read(buf, got, buf.byteLength - got, pos + got);
    if (bytesRead === 0) {
      throw new BetonFormatError(
        'TRUNCATED',
        `${file}: the file ends at byte ${pos + got} while ${buf.byteLength - got} more bytes were expected; it was cut short during the merge`,
        { file, offset: pos + got },
      );
    }
    got += bytesRead;
  }
}

export async function writeFully(fh: OutputFile, buf: Uint8Array, pos: number): Promise<void> {
  for (let put = 0; put < buf.byteLength;) {
    const { bytesWritten } = await fh.write(buf, put, buf.byteLength - put, pos + put);
    put += bytesWritten;
  }
}

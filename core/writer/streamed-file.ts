import type { FileHandle } from 'node:fs/promises';
import type { OutputFile, StreamTarget } from './output-file.js';

const ZEROS = new Uint8Array(1 << 20);

/**
 * An output file whose middle is streamed. Bytes below `keepEnd` (header, field table,
 * metadata table, which the writer fills in any order and finishes last, plus enough of the
 * first pages to make S3's 5 MiB part 1) and from the tail mark on (the allocation table) go
 * to the local file; everything between goes to `target` in file order, the gaps the local
 * writer leaves as holes (a page's unused end) sent as zeros. The local file is the same
 * size as the output but sparse: its disk use is the kept bytes only.
 *
 * Writes between keepEnd and the tail must come in file order (pages do: page-writer.ts
 * writes them one after another); one behind what was already streamed is a bug and fails.
 */
export class StreamedFile implements OutputFile {
  private frontier: number;
  private tailStart = Number.POSITIVE_INFINITY;

  constructor(
    private readonly local: FileHandle,
    private readonly target: StreamTarget,
    /** Infinity: nothing can be streamed during the write (the layout is known only at its end). */
    private readonly keepEnd: number,
  ) {
    this.frontier = keepEnd;
    if (Number.isFinite(keepEnd)) target.begin(keepEnd);
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    let bytes = buffer.subarray(offset, offset + length);
    let at = position;
    const toLocal = async (end: number): Promise<void> => {
      const n = Math.min(bytes.byteLength, end - at);
      if (n <= 0) return;
      await this.local.write(bytes, 0, n, at);
      bytes = bytes.subarray(n);
      at += n;
    };
    await toLocal(this.keepEnd);
    const streamEnd = Math.min(at + bytes.byteLength, this.tailStart);
    if (bytes.byteLength > 0 && at < streamEnd) {
      if (at < this.frontier)
        throw new Error(`streamed output: a write at byte ${at} comes after byte ${this.frontier} was sent (writes must be in file order)`);
      await this.zeros(at - this.frontier);
      await this.target.append(bytes.subarray(0, streamEnd - at));
      bytes = bytes.subarray(streamEnd - at);
      at = streamEnd;
      this.frontier = at;
    }
    await toLocal(Number.POSITIVE_INFINITY);
    return { bytesWritten: length };
  }

  private async zeros(n: number): Promise<void> {
    for (let left = n; left > 0; left -= ZEROS.byteLength) await this.target.append(ZEROS.subarray(0, Math.min(left, ZEROS.byteLength)));
  }

  /** The local file's size (sparse): the target reads what was not streamed from it at the end. */
  truncate(len: number): Promise<void> {
    return this.local.truncate(len);
  }

  datasync(): Promise<void> {
    return this.local.datasync();
  }

  markTail(position: number): void {
    this.tailStart = Math.max(position, this.frontier);
  }
}

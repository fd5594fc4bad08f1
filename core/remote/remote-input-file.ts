import type { RangeClient } from './range-client.js';

/**
 * A remote .beton read like a FileHandle (`read` at a position, `close`), for a merge that
 * copies its inputs chunk by chunk: each read is one ranged GET, pinned to the version the
 * open saw (REMOTE_CHANGED if the object is replaced mid-merge), written straight into the
 * caller's buffer. Nothing is staged on local disk: scratch stays at the copy's chunks.
 */
export class RemoteInputFile {
  constructor(
    private readonly client: RangeClient,
    private readonly size: number,
    private readonly etag: string | null,
  ) {}

  async read(buf: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    const n = Math.max(0, Math.min(length, this.size - position));
    if (n === 0) return { bytesRead: 0 };
    const into = buf.subarray(offset, offset + n);
    const r = await this.client.get(position, n, this.etag, into);
    if (r.bytes.buffer !== into.buffer || r.bytes.byteOffset !== into.byteOffset) into.set(r.bytes.subarray(0, n));
    return { bytesRead: Math.min(n, r.bytes.byteLength) };
  }

  async close(): Promise<void> {}
}

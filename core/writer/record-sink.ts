import type { OutputFile } from './output-file.js';

/**
 * Buffers fixed-size records and writes them in large positional writes, so the
 * metadata table and allocation table never sit whole in memory (a 5-million-row table
 * would otherwise hold ~100 MB of records).
 */
export class RecordSink {
  private buf: Uint8Array;
  private used = 0;
  /** Records handed to the sink so far. */
  count = 0;
  private flushedUpTo = 0;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly fh: () => Promise<OutputFile>,
    private readonly base: number,
    readonly recordSize: number,
    bufferBytes = 1 << 22,
  ) {
    this.buf = new Uint8Array(Math.max(recordSize, Math.floor(bufferBytes / Math.max(1, recordSize)) * recordSize));
  }

  /** A zeroed slot for the next record; valid until the next call. */
  next(): Uint8Array {
    if (this.used + this.recordSize > this.buf.byteLength) this.flush();
    const slot = this.buf.subarray(this.used, this.used + this.recordSize);
    slot.fill(0);
    this.used += this.recordSize;
    this.count++;
    return slot;
  }

  private flush(): void {
    if (this.used === 0) return;
    const bytes = this.buf.slice(0, this.used);
    const pos = this.base + this.flushedUpTo * this.recordSize;
    this.flushedUpTo += this.used / this.recordSize;
    this.used = 0;
    this.pending = this.pending.then(async () => {
      const h = await this.fh();
      await h.write(bytes, 0, bytes.byteLength, pos);
    });
    this.pending.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.flush();
    await this.pending;
  }
}

import type { OutputFile } from './output-file.js';

/**
 * Writes full pages as the allocator hands them over, double-buffered: each page's write is
 * queued (in page order) and the allocator gets a buffer to fill next, one whose write has
 * finished, else a new one. No copy, no clearing: with a page filling every few hundred
 * milliseconds and written in a few, two buffers take turns.
 */
export class PageWriter {
  private writes: Promise<unknown> = Promise.resolve();
  /** Page buffers whose writes have finished, ready to be filled again. */
  private readonly free: Uint8Array[] = [];
  /** The one early flush of the pages written so far has been queued. */
  private earlySynced = false;
  /** Page writes queued and not finished, oldest first. */
  private readonly pending: Array<Promise<unknown>> = [];
  /** Bytes of the pages handed over so far (whole pages: progress reports it). */
  bytesWritten = 0;

  constructor(
    private readonly pageSize: number,
    /** The file the pages go to (the output, or a spill file opened on first use). */
    private readonly file: () => Promise<OutputFile>,
    /** Where page 0 starts in that file. */
    private readonly base: number,
    /**
     * Asked at each page: time to also flush the pages so far to disk (once)? Near the end
     * of a write of known size, that flush runs while the last samples encode, so the fsync
     * before the rename has a page or two left instead of the whole file (measured ~20 of
     * ~45 ms at the end of a 55 MB build). Null: never.
     */
    private readonly syncEarly: (() => boolean) | null,
  ) {}

  /**
   * Queues page `pageNumber`'s write (`bytes`: the page up to its last used byte; the zero
   * tail stays a hole) and returns the pageSize buffer to fill next. The buffer behind
   * `bytes` belongs to this writer until its write has finished.
   */
  write(pageNumber: number, bytes: Uint8Array): Uint8Array {
    const pos = this.base + pageNumber * this.pageSize;
    this.bytesWritten += this.pageSize;
    const buffer = new Uint8Array(bytes.buffer, bytes.byteOffset, this.pageSize);
    const syncNow = !this.earlySynced && this.syncEarly !== null && this.syncEarly();
    if (syncNow) this.earlySynced = true;
    const done = this.writes.then(async () => {
      const h = await this.file();
      await h.write(bytes, 0, bytes.byteLength, pos);
      this.pending.shift();
      this.free.push(buffer);
      if (syncNow) await h.datasync();
    });
    this.writes = done;
    this.pending.push(done);
    // Surfaces in flushed(), not as an unhandled rejection.
    this.writes.catch(() => undefined);
    return this.free.pop() ?? new Uint8Array(this.pageSize);
  }

  /**
   * Resolves once at most `max` page writes wait (at once when they do already). The
   * encoders pull more samples only then: a slow output (a network upload) holds the build
   * back instead of each waiting page taking a fresh page buffer in memory. Rejects with a
   * failed write.
   */
  async backlog(max: number): Promise<void> {
    // Writes finish in order: waiting for the one `max` places from the newest leaves `max` waiting.
    while (this.pending.length > max) await this.pending[this.pending.length - max - 1];
  }

  /** Every queued write done; rejects with the first that failed. */
  async flushed(): Promise<void> {
    await this.writes;
  }

  /** Every queued write over, failed or not (before closing the files). */
  async settled(): Promise<void> {
    await this.writes.catch(() => undefined);
  }
}

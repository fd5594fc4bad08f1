/**
 * Splits a text stream into lines for parsing. '\r' ends a line too: progress bars (tqdm)
 * redraw with it, and each redraw carries the current count. A runaway line without any
 * break is dropped past `maxLine` characters so a binary spew cannot grow memory.
 */
export class LineSplitter {
  private buf = '';
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 1 << 20,
  ) {}

  push(chunk: string): void {
    const parts = (this.buf + chunk).split(/\r\n|\r|\n/);
    this.buf = parts.pop() ?? '';
    if (this.buf.length > this.maxLine) this.buf = '';
    for (const p of parts) this.onLine(p);
  }

  /** The last line, when the stream ends without a line break. */
  end(): void {
    if (this.buf !== '') this.onLine(this.buf);
    this.buf = '';
  }
}

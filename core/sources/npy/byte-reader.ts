import type { FileHandle } from 'node:fs/promises';

/**
 * Exact-length reads over either a region of a file (positional reads: skipping is a
 * seek) or a stream (a deflated zip member: skipping reads and drops). The .npy row
 * reader is written once against this, so a plain .npy, a stored .npz member and a
 * deflated one share one code path.
 */
export interface ByteReader {
  /** Reads `n` bytes; fewer only when the data ends first. The result is a fresh copy. */
  read(n: number): Promise<Uint8Array>;
  /** Advances `n` bytes. */
  skip(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Positional reads over [start, end) of an open file; `ownsHandle` closes it on close(). */
export function fileByteReader(fh: FileHandle, start: number, end: number, ownsHandle = false): ByteReader {
  let pos = start;
  return {
    async read(n) {
      const want = Math.max(0, Math.min(n, end - pos));
      const buf = new Uint8Array(want);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await fh.read(buf, got, want - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      pos += got;
      return got === want ? buf : buf.subarray(0, got);
    },
    async skip(n) {
      pos = Math.min(end, pos + n);
    },
    async close() {
      if (ownsHandle) await fh.close();
    },
  };
}

/** Sequential reads over a byte stream (e.g. a file stream piped through inflate). */
export function streamByteReader(stream: AsyncIterable<Uint8Array> & { destroy?: () => void }): ByteReader {
  const it = stream[Symbol.asyncIterator]();
  let pending: Uint8Array[] = [];
  let buffered = 0;
  let done = false;

  const fill = async (n: number): Promise<void> => {
    while (buffered < n && !done) {
      const r = await it.next();
      if (r.done) done = true;
      else {
        pending.push(r.value);
        buffered += r.value.byteLength;
      }
    }
  };
  const take = (n: number, keep: boolean): Uint8Array | null => {
    const want = Math.min(n, buffered);
    const out = keep ? new Uint8Array(want) : null;
    let off = 0;
    while (off < want) {
      const head = pending[0]!;
      const k = Math.min(head.byteLength, want - off);
      out?.set(head.subarray(0, k), off);
      off += k;
      if (k === head.byteLength) pending.shift();
      else pending[0] = head.subarray(k);
    }
    buffered -= want;
    return out;
  };

  return {
    async read(n) {
      await fill(n);
      return take(n, true)!;
    },
    async skip(n) {
      // Drop in bounded steps so skipping a long prefix never buffers it whole.
      let left = n;
      while (left > 0 && !(done && buffered === 0)) {
        const step = Math.min(left, 1 << 20);
        await fill(step);
        const had = buffered;
        take(step, false);
        left -= Math.min(step, had);
      }
    },
    async close() {
      pending = [];
      buffered = 0;
      stream.destroy?.();
      await it.return?.();
    },
  };
}

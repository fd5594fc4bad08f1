// Issue 23 item 2: the double-buffered page writes, now their own unit (page-writer.ts).
// Pages land at base + n * pageSize up to their last used byte; the allocator gets back a
// buffer whose write has finished (two buffers take turns, no copy); the early flush
// happens once, when asked; a failed write surfaces in flushed().
import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PageWriter } from '../../core/writer/page-writer.js';

interface FakeFile {
  writes: Array<{ pos: number; bytes: number[] }>;
  syncs: number;
  handle: FileHandle;
}

function fakeFile(fail = false): FakeFile {
  const f: FakeFile = { writes: [], syncs: 0, handle: undefined as unknown as FileHandle };
  f.handle = {
    write: async (buf: Uint8Array, off: number, len: number, pos: number) => {
      await new Promise((r) => setImmediate(r));
      if (fail) throw new Error('disk full');
      f.writes.push({ pos, bytes: [...buf.subarray(off, off + len)] });
      return { bytesWritten: len, buffer: buf };
    },
    datasync: async () => {
      f.syncs++;
    },
  } as unknown as FileHandle;
  return f;
}

describe('PageWriter', () => {
  it('writes each page at base + n * pageSize, up to its fill, and counts whole pages', async () => {
    const file = fakeFile();
    const w = new PageWriter(8, async () => file.handle, 100, null);
    const page = new Uint8Array(8).fill(7);
    w.write(0, page.subarray(0, 3));
    w.write(1, new Uint8Array(8).fill(9).subarray(0, 8));
    await w.flushed();
    expect(file.writes).toEqual([
      { pos: 100, bytes: [7, 7, 7] },
      { pos: 108, bytes: [9, 9, 9, 9, 9, 9, 9, 9] },
    ]);
    expect(w.bytesWritten).toBe(16);
    expect(file.syncs).toBe(0);
  });

  it('hands back a written page buffer to fill next, else a fresh one', async () => {
    const file = fakeFile();
    const w = new PageWriter(8, async () => file.handle, 0, null);
    const a = new Uint8Array(8);
    const b = w.write(0, a.subarray(0, 8));
    expect(b).not.toBe(a);
    expect(b.byteLength).toBe(8);
    await w.flushed();
    const c = w.write(1, b.subarray(0, 4));
    // a's write has finished: it is the next buffer, not a new allocation.
    expect(c.buffer).toBe(a.buffer);
    await w.flushed();
  });

  it('flushes to disk once, at the first page the predicate allows', async () => {
    const file = fakeFile();
    let placed = 0;
    const w = new PageWriter(
      4,
      async () => file.handle,
      0,
      () => placed >= 2,
    );
    for (let n = 0; n < 5; n++) {
      placed = n;
      w.write(n, new Uint8Array(4).subarray(0, 4));
    }
    await w.flushed();
    expect(file.syncs).toBe(1);
  });

  it('a failed write rejects flushed(), and settled() still resolves', async () => {
    const w = new PageWriter(4, async () => fakeFile(true).handle, 0, null);
    w.write(0, new Uint8Array(4));
    await expect(w.flushed()).rejects.toThrow('disk full');
    await expect(w.settled()).resolves.toBeUndefined();
  });
});

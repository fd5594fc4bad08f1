/**
 * The loader's two memory managers behind one interface: the OS cache holds nothing; the
 * process cache reads a batch's pages into its pool, pins them until released, and its
 * worker-side view returns the file's bytes at the heap pointers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../../core/fields/bytes-field.js';
import { IntField } from '../../../core/fields/int-field.js';
import { heapAccess } from '../../../core/loader/memory/heap-access.js';
import { openMemory } from '../../../core/loader/memory/open-memory.js';
import { Reader } from '../../../core/reader/reader.js';
import { DatasetWriter } from '../../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let path: string;
let reader: Reader;
beforeAll(async () => {
  path = join(dir, 'bytes.beton');
  // 3000-byte blobs on 8 KiB pages: a few samples per page, so pages are shared.
  await new DatasetWriter(
    path,
    { blob: new BytesField(), label: new IntField() },
    { numWorkers: 0, pageSize: 8192, allowSmallPages: true },
  ).write(Array.from({ length: 40 }, (_, i) => ({ blob: new Uint8Array(3000).fill(i + 1), label: i })));
  reader = await Reader.open(path);
});
afterAll(() => reader.close());

describe('loader memory managers', () => {
  it('OS cache: nothing held or read; workers map the file', async () => {
    const m = await openMemory(true, path, reader, { fields: [0], batchSize: 4 });
    expect(m.plan).toEqual({ kind: 'os' });
    (await m.hold(Uint32Array.of(0, 1, 2))).release();
    expect(m.pagesRead).toBe(0);
    const ref = reader.heapRef(7, 0)!;
    expect(heapAccess(m.plan, path, reader.pageSize).bytes(ref.ptr, ref.size)).toEqual(new Uint8Array(3000).fill(8));
    await m.close();
  });

  it("process cache: a batch's pages are read once into the pool and the workers' view finds them", async () => {
    const m = await openMemory(false, path, reader, { fields: [0], batchSize: 4, bytes: 1 });
    expect(m.plan.kind).toBe('process');
    const ids = Uint32Array.of(3, 4, 9);
    const hold = await m.hold(ids);
    const read = m.pagesRead;
    expect(read).toBeGreaterThan(0);
    const view = heapAccess(m.plan, path, reader.pageSize);
    const file = readFileSync(path);
    for (const id of ids) {
      const ref = reader.heapRef(id, 0)!;
      expect(view.bytes(ref.ptr, ref.size)).toEqual(new Uint8Array(file.subarray(ref.ptr, ref.ptr + ref.size)));
    }
    // Held again while resident: no read.
    (await m.hold(ids)).release();
    expect(m.pagesRead).toBe(read);
    hold.release();
    hold.release(); // a second release must not unpin pages another batch holds
    await m.close();
  });

  it('process cache: a pool of one page still fits a batch, and evicts released pages for the next', async () => {
    const m = await openMemory(false, path, reader, { fields: [0], batchSize: 2, bytes: 1 });
    const view = heapAccess(m.plan, path, reader.pageSize);
    for (let id = 0; id < 40; id += 2) {
      const hold = await m.hold(Uint32Array.of(id, id + 1));
      for (const s of [id, id + 1]) {
        const ref = reader.heapRef(s, 0)!;
        expect(view.bytes(ref.ptr, ref.size)[0]).toBe(s + 1);
      }
      hold.release();
    }
    await m.close();
  });
});

/**
 * Cheap rows (int/float copied from the metadata table, no ops) are gathered on the
 * consumer's thread instead of by a worker (loader.ts, gatherEpoch). The batches must be
 * exactly the worker path's (BETON_INLINE_GATHER=0): ids, bytes, epochs, resume, and a held
 * batch must survive the next one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-inline-gather-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'scalars.beton');
const N = 1000;

beforeAll(async () => {
  await new DatasetWriter(file, { i: new IntField(), x: new FloatField() }, { numWorkers: 0 }).write(
    Array.from({ length: N }, (_, k) => ({ i: k * 3 - 7, x: k / 7 })),
  );
});

interface Seen {
  ids: number[];
  i: number[];
  x: number[];
}

async function epochs(
  inline: boolean,
  opts: Partial<LoaderOptions>,
  count: number,
): Promise<{ seen: Seen[]; busy: number; prefetched: number }> {
  const before = process.env.BETON_INLINE_GATHER;
  process.env.BETON_INLINE_GATHER = inline ? '1' : '0';
  const loader = await Loader.open(file, { batchSize: 64, numWorkers: 2, order: 'random', seed: 3, ...opts });
  if (before === undefined) delete process.env.BETON_INLINE_GATHER;
  else process.env.BETON_INLINE_GATHER = before;
  try {
    const seen: Seen[] = [];
    for (let e = 0; e < count; e++) {
      const s: Seen = { ids: [], i: [], x: [] };
      for await (const b of loader) {
        s.ids.push(...b.sampleIds);
        s.i.push(...Array.from(b.get('i').data as ArrayLike<number | bigint>, Number));
        s.x.push(...Array.from(b.get('x').data as ArrayLike<number>));
      }
      seen.push(s);
      // Time for worker 0 to finish the next epoch's order (the consumer takes it only when done).
      await new Promise((r) => setTimeout(r, 200));
    }
    return { seen, busy: loader.stats().workerBusyMs, prefetched: loader.stats().ordersPrefetched };
  } finally {
    await loader.close();
  }
}

describe('inline gather of cheap rows', () => {
  it('gives the worker path’s batches, epoch after epoch, without a worker job', async () => {
    const inline = await epochs(true, {}, 3);
    const workers = await epochs(false, {}, 3);
    expect(inline.seen).toEqual(workers.seen);
    // Epochs 1 and 2 took the order worker 0 computed ahead, and it is the order.
    expect(inline.prefetched).toBe(2);
    expect(workers.prefetched).toBe(0);
    // Rows are the records written, in the order's ids.
    for (const s of inline.seen) {
      expect(s.ids.length).toBe(Math.floor(N / 64) * 64);
      s.ids.forEach((id, k) => {
        expect(s.i[k]).toBe(id * 3 - 7);
        expect(s.x[k]).toBe(id / 7);
      });
    }
    expect(new Set(inline.seen.map((s) => s.ids.join())).size).toBe(3);
    // The inline path posted no job: workers stayed idle; the worker path's did the copies.
    expect(inline.busy).toBe(0);
    expect(workers.busy).toBeGreaterThan(0);
  });

  it('prefetched sequential and distributed random orders are the ones computed here', async () => {
    for (const opts of [{ order: 'sequential' as const }, { distributed: { rank: 1, worldSize: 2 } }]) {
      const inline = await epochs(true, opts, 3);
      const workers = await epochs(false, opts, 3);
      expect(inline.prefetched).toBe(2);
      expect(inline.seen.map((s) => s.ids)).toEqual(workers.seen.map((s) => s.ids));
    }
  });

  it('keeps the last partial batch, and a held batch intact while the next is made', async () => {
    const a = await epochs(true, { dropLast: false, order: 'sequential' }, 1);
    expect(a.seen[0]!.ids).toEqual(Array.from({ length: N }, (_, k) => k));
    const loader = await Loader.open(file, { batchSize: 64, numWorkers: 1, order: 'random', seed: 1, batchesAhead: 1 });
    try {
      let prev: { data: ArrayLike<number | bigint>; copy: number[] } | null = null;
      for await (const b of loader) {
        if (prev) expect(Array.from(prev.data, Number)).toEqual(prev.copy);
        const data = b.get('i').data as ArrayLike<number | bigint>;
        prev = { data, copy: Array.from(data, Number) };
      }
    } finally {
      await loader.close();
    }
  });

  it('resumes mid-epoch with the remaining batches', async () => {
    const full = (await epochs(true, {}, 1)).seen[0]!.ids;
    const loader = await Loader.open(file, { batchSize: 64, numWorkers: 2, order: 'random', seed: 3 });
    let state;
    try {
      let n = 0;
      for await (const _b of loader) if (++n === 5) break;
      state = loader.state();
      expect(state.batch).toBe(5);
    } finally {
      await loader.close();
    }
    const again = await Loader.open(file, { batchSize: 64, numWorkers: 2, order: 'random', seed: 3 });
    try {
      again.resume(state);
      const rest: number[] = [];
      for await (const b of again) rest.push(...b.sampleIds);
      expect(rest).toEqual(full.slice(5 * 64));
    } finally {
      await again.close();
    }
  });
});

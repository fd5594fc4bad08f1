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
import type { LoaderError } from '../../core/loader/errors.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { createOrder } from '../../core/loader/orders/index.js';
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

/** Opens a loader over `file` with inline gather on or off (BETON_INLINE_GATHER is read at open). */
async function openWith(inline: boolean, opts: Partial<LoaderOptions>): Promise<Loader> {
  const before = process.env.BETON_INLINE_GATHER;
  process.env.BETON_INLINE_GATHER = inline ? '1' : '0';
  try {
    return await Loader.open(file, { batchSize: 64, numWorkers: 1, order: 'random', seed: 3, ...opts });
  } finally {
    if (before === undefined) delete process.env.BETON_INLINE_GATHER;
    else process.env.BETON_INLINE_GATHER = before;
  }
}

/** `count` epochs of a loader opened as openWith() says; the loader is closed after. */
async function epochs(
  inline: boolean,
  opts: Partial<LoaderOptions>,
  count: number,
): Promise<{ seen: Seen[]; busy: number; prefetched: number }> {
  const loader = await openWith(inline, opts);
  try {
    const seen: Seen[] = [];
    for (let e = 0; e < count; e++) {
      // Time for worker 0 to finish this epoch's order (the consumer takes it only when done).
      if (e > 0) await new Promise((r) => setTimeout(r, 200));
      const s: Seen = { ids: [], i: [], x: [] };
      for await (const b of loader) {
        s.ids.push(...b.sampleIds);
        s.i.push(...Array.from(b.get('i').data as ArrayLike<number | bigint>, Number));
        s.x.push(...Array.from(b.get('x').data as ArrayLike<number>));
      }
      seen.push(s);
    }
    return { seen, busy: loader.stats().workerBusyMs, prefetched: loader.stats().ordersPrefetched };
  } finally {
    await loader.close();
  }
}

// A loader start boots a worker thread (~1.5 s on a quiet machine): one worker each, the
// inline run of the default options is shared by the first and last case, and orders are
// checked against the order module here rather than a second loader.
describe('inline gather of cheap rows', () => {
  let inline: Awaited<ReturnType<typeof epochs>>;
  let workers: Awaited<ReturnType<typeof epochs>>;
  beforeAll(async () => {
    inline = await epochs(true, {}, 3);
    workers = await epochs(false, {}, 3);
  });

  it('gives the worker path’s batches, epoch after epoch, without a worker job', () => {
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

  it('a prefetched distributed random order is the one computed here', async () => {
    const distributed = { rank: 1, worldSize: 2 };
    const rank = await epochs(true, { distributed }, 3);
    expect(rank.prefetched).toBe(2);
    // The order module on this thread: rank 1's share of each epoch, dropLast cutting it to whole batches.
    const order = createOrder('random', { indices: Uint32Array.from({ length: N }, (_, k) => k), seed: 3, batchSize: 64, distributed });
    const want = [0, 1, 2].map((e) => {
      const ids = [...order.sampleOrder(e)];
      return ids.slice(0, Math.floor(ids.length / 64) * 64);
    });
    expect(want[0]!.length).toBe(Math.floor(N / 2 / 64) * 64);
    expect(rank.seen.map((s) => s.ids)).toEqual(want);
  });

  it('sequential: prefetched orders are the sequence, the last partial batch is kept, and a held batch stays intact while the next is made', async () => {
    const loader = await openWith(true, { dropLast: false, order: 'sequential', batchesAhead: 1 });
    try {
      for (let e = 0; e < 3; e++) {
        if (e > 0) await new Promise((r) => setTimeout(r, 200));
        const ids: number[] = [];
        let prev: { data: ArrayLike<number | bigint>; copy: number[] } | null = null;
        for await (const b of loader) {
          if (prev) expect(Array.from(prev.data, Number)).toEqual(prev.copy);
          const data = b.get('i').data as ArrayLike<number | bigint>;
          prev = { data, copy: Array.from(data, Number) };
          ids.push(...b.sampleIds);
        }
        expect(ids).toEqual(Array.from({ length: N }, (_, k) => k));
      }
      expect(loader.stats().ordersPrefetched).toBe(2);
    } finally {
      await loader.close();
    }
  });

  it("an id written into the epoch's order through a batch's sampleIds is refused, naming it, before its row is read", async () => {
    const loader = await openWith(true, {});
    try {
      const seen: number[] = [];
      const run = async () => {
        for await (const b of loader) {
          seen.push(b.index);
          // The whole order is behind sampleIds: the next batch's first id, past the file.
          if (b.index === 0) new Uint32Array(b.sampleIds.buffer, b.sampleIds.byteOffset)[64] = N + 5;
        }
      };
      const e = (await run().then(
        () => null,
        (x: unknown) => x,
      )) as LoaderError | null;
      expect(e?.code).toBe('BAD_OPTIONS');
      expect(e?.message).toMatch(new RegExp(`sample id ${N + 5} \\(position 64 of epoch 0's order\\) is outside the file's ${N} samples`));
      expect(seen).toEqual([0]);
    } finally {
      await loader.close();
    }
  });

  it('resumes mid-epoch with the remaining batches', async () => {
    const full = inline.seen[0]!.ids;
    // Three workers asked: an inline gather starts one (it computes orders ahead; more would idle).
    const again = await openWith(true, { numWorkers: 3 });
    expect(again.numWorkers).toBe(1);
    try {
      // A state of this loader at epoch 0, batch 5, resumed by the inline path.
      again.resume({ ...again.state(), epoch: 0, batch: 5 });
      const rest: number[] = [];
      for await (const b of again) rest.push(...b.sampleIds);
      expect(rest).toEqual(full.slice(5 * 64));
      // And the state the inline path reports after 5 batches of the next epoch and a break.
      let n = 0;
      for await (const _b of again) if (++n === 5) break;
      expect(again.state()).toMatchObject({ epoch: 1, batch: 5 });
    } finally {
      await again.close();
    }
  });
});

describe('sampleIds are views of the epoch order', () => {
  it("stay what they were when a caller's order function reuses and changes its array", async () => {
    // Breaks the contract (a fresh array per call) on purpose: the loader copies a caller's order.
    const shared = Uint32Array.from({ length: N }, (_, k) => k);
    const loader = await openWith(true, {
      order: () => ({
        name: 'reused',
        sampleOrder: (epoch: number) => {
          shared.reverse();
          if (epoch % 2 === 0) shared.reverse();
          return shared;
        },
      }),
    });
    try {
      const held: Array<{ ids: Uint32Array; copy: number[] }> = [];
      for await (const b of loader) held.push({ ids: b.sampleIds, copy: Array.from(b.sampleIds) });
      for await (const _b of loader) break;
      shared.fill(0);
      for (const h of held) expect(Array.from(h.ids)).toEqual(h.copy);
      expect(held[0]!.copy.slice(0, 3)).toEqual([0, 1, 2]);
    } finally {
      await loader.close();
    }
  });
});

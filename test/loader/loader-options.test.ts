/**
 * Loader options at and past their bounds, foreign resume states and close() during an
 * iteration (issue 19, items 7, 10 and 14's loader options). Before: batchSize 1e9 and
 * batchesAhead 1e6 died in buffer allocations, indices [0.5] loaded sample 0 and [-1] was
 * "contains 4294967295", resume(null) was a TypeError, a state from another file or batch
 * size silently skipped batches, 256 workers started for 12 samples, and close() inside a
 * for-await left the loop waiting forever.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { LoaderError } from '../../core/loader/errors.js';
import { Loader, type LoaderOptions, type LoaderState } from '../../core/loader/loader.js';
import { effectiveWorkers } from '../../core/loader/option-bounds.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-loader-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let twelve: string;
let twelveCopy: string;
let other: string;
let many: string;
beforeAll(async () => {
  const write = (path: string, n: number, label: (i: number) => number): Promise<unknown> =>
    new DatasetWriter(
      path,
      { label: new IntField(), blob: new BytesField() },
      { numWorkers: 0, pageSize: 8192, allowSmallPages: true },
    ).write(Array.from({ length: n }, (_, i) => ({ label: label(i), blob: new Uint8Array(100).fill(i) })));
  twelve = join(dir, 'twelve.beton');
  twelveCopy = join(dir, 'twelve-copy.beton');
  other = join(dir, 'other.beton');
  many = join(dir, 'many.beton');
  await write(twelve, 12, (i) => i);
  await write(twelveCopy, 12, (i) => i);
  await write(other, 12, (i) => 100 + i);
  await write(many, 400, (i) => i);
});

async function ids(path: string, opts: LoaderOptions): Promise<number[][]> {
  const l = await Loader.open(path, opts);
  try {
    const out: number[][] = [];
    for await (const b of l) out.push([...b.sampleIds]);
    return out;
  } finally {
    await l.close();
  }
}

async function refused(p: Promise<unknown>): Promise<LoaderError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(LoaderError);
  return e as LoaderError;
}

describe('loader option bounds', () => {
  it('batchSize 1e9 on 12 samples: one batch of the 12 (dropLast false) or a named refusal, without allocating 1e9 rows', async () => {
    expect(await ids(twelve, { batchSize: 1e9, dropLast: false, numWorkers: 2 })).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]);
    // With dropLast (the default) an epoch would have no batch at all: refused naming dropLast (issue 22), never silently empty.
    const none = await refused(Loader.open(twelve, { batchSize: 1e9, numWorkers: 1 }));
    expect(none.code).toBe('BAD_OPTIONS');
    expect(none.message).toMatch(/dropLast/);
    const e = await refused(Loader.open(twelve, { batchSize: 2 ** 40 }));
    expect(e.code).toBe('BAD_OPTIONS');
    expect(e.message).toMatch(/batchSize must be an integer from 1 to 4294967295, got 1099511627776/);
  });

  it('batchesAhead: at most 1024 (1e6 is refused by name); a large legal value on a short epoch allocates only the epoch', async () => {
    const e = await refused(Loader.open(twelve, { batchSize: 4, batchesAhead: 1e6 }));
    expect(e.message).toBe('batchesAhead must be an integer from 1 to 1024, got 1000000');
    expect(await ids(twelve, { batchSize: 4, batchesAhead: 1024, numWorkers: 1 })).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 10, 11],
    ]);
  });

  it('processCacheBytes: NaN, negative or not a number is refused (NaN made a pool of no slots before: the first batch waited forever)', async () => {
    for (const bytes of [NaN, -1, Infinity, '1e9']) {
      const e = await refused(Loader.open(twelve, { batchSize: 4, osCache: false, processCacheBytes: bytes as number }));
      expect(e.message).toMatch(/processCacheBytes must be a number of bytes >= 0, got/);
    }
  });

  it('indices: non-integers, negatives, ids past the file and non-numbers are refused naming the entry', async () => {
    const cases: Array<[unknown[], RegExp]> = [
      [[0.5], /indices contains 0\.5 \(at \[0\]\), but .*twelve\.beton has 12 samples: ids are integers from 0 to 11/],
      [[3, -1], /indices contains -1 \(at \[1\]\)/],
      [[12], /indices contains 12 \(at \[0\]\)/],
      [[2 ** 32 + 1], /indices contains 4294967297/],
      [[NaN], /indices contains NaN/],
      [['1'], /indices contains "1"/],
    ];
    for (const [indices, want] of cases) {
      const e = await refused(Loader.open(twelve, { batchSize: 2, indices: indices as number[] }));
      expect(e.code).toBe('BAD_OPTIONS');
      expect(e.message).toMatch(want);
      expect(e.message).not.toMatch(/4294967295/);
    }
  });

  it('numWorkers: at most one per row of a batch and max(64, 2 × cores); 0.5 and 0 are refused', async () => {
    const l = await Loader.open(twelve, { batchSize: 4, numWorkers: 256 });
    expect(l.numWorkers).toBe(4);
    await l.close();
    expect(effectiveWorkers(256, 1000, 4)).toBe(64);
    expect(effectiveWorkers(256, 1000, 96)).toBe(192);
    expect(effectiveWorkers(3, 1000, 2)).toBe(3);
    for (const n of [0, 0.5, -2])
      expect((await refused(Loader.open(twelve, { batchSize: 4, numWorkers: n }))).message).toMatch(/numWorkers must be an integer/);
  });
});

describe('resume states carry their loader', () => {
  const opts: LoaderOptions = { batchSize: 3, order: 'random', seed: 5, numWorkers: 1 };

  async function stateAfter(path: string, o: LoaderOptions, batches: number): Promise<LoaderState> {
    const l = await Loader.open(path, o);
    try {
      let n = 0;
      for await (const _ of l) if (++n === batches) break;
      return JSON.parse(JSON.stringify(l.state())) as LoaderState;
    } finally {
      await l.close();
    }
  }

  async function resumeError(path: string, o: LoaderOptions, state: unknown): Promise<LoaderError> {
    const l = await Loader.open(path, o);
    try {
      let caught: unknown = null;
      try {
        l.resume(state as LoaderState);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(LoaderError);
      return caught as LoaderError;
    } finally {
      await l.close();
    }
  }

  it('the same file and options resume (a byte-identical copy elsewhere too: identity is content, not path)', async () => {
    const state = await stateAfter(twelve, opts, 2);
    expect(state).toMatchObject({
      epoch: 0,
      batch: 2,
      seed: 5,
      loader: { batchSize: 3, order: 'random', seed: 5, length: 4, indices: null },
    });
    const l = await Loader.open(twelveCopy, opts);
    l.resume(state);
    const rest: number[] = [];
    for await (const b of l) rest.push(b.index);
    await l.close();
    expect(rest).toEqual([2, 3]);
  });

  it('another file, batch size, order, seed, indices or distributed rank is a FOREIGN_STATE naming it', async () => {
    const state = await stateAfter(twelve, opts, 1);
    const cases: Array<[string, LoaderOptions, RegExp]> = [
      [other, opts, /its file content \(sha256 of its header and tables\) is [0-9a-f]{12}…, this loader over .*other\.beton has/],
      [twelve, { ...opts, batchSize: 4 }, /its batchSize is 3, this loader .* has 4/],
      [twelve, { ...opts, order: 'sequential' }, /its order is "random", .* has "sequential"/],
      [twelve, { ...opts, seed: 6 }, /its seed is 5, .* has 6/],
      [twelve, { ...opts, indices: [0, 1, 2, 3, 4, 5] }, /its indices \(sha256\) is null/],
      [twelve, { ...opts, distributed: { rank: 0, worldSize: 2 } }, /its distributed rank\/worldSize is null, .* has "0\/2"/],
    ];
    for (const [path, o, want] of cases) {
      const e = await resumeError(path, o, state);
      expect(e.code).toBe('FOREIGN_STATE');
      expect(e.message).toMatch(want);
      expect(e.message).toMatch(/open the loader with the file and options the state was saved with/);
    }
  });

  it('null, garbage, identity-less and impossible states are refused with what a state is', async () => {
    const state = await stateAfter(twelve, opts, 1);
    const cases: Array<[unknown, string, RegExp]> = [
      [null, 'BAD_OPTIONS', /resume\(\) takes a state from loader\.state\(\) \(\{ epoch, batch, seed, loader \}\), got null/],
      ['x', 'BAD_OPTIONS', /got string/],
      [[1, 2], 'BAD_OPTIONS', /got an array/],
      [{ epoch: 0, batch: 1, seed: 5 }, 'FOREIGN_STATE', /the state has no loader identity/],
      [{ ...state, batch: 999 }, 'FOREIGN_STATE', /state\.batch is 999, but an epoch of this loader has 4 batches/],
      [{ ...state, batch: -1 }, 'FOREIGN_STATE', /state\.batch is -1/],
      [{ ...state, epoch: 1.5 }, 'BAD_OPTIONS', /state\.epoch must be an integer >= 0, got 1\.5/],
      [{ ...state, seed: 9 }, 'FOREIGN_STATE', /saved with seed 9, this loader uses 5/],
    ];
    for (const [s, code, want] of cases) {
      const e = await resumeError(twelve, opts, s);
      expect([e.code, e.message]).toEqual([code, expect.stringMatching(want)]);
    }
  });
});

describe('close() during for await', () => {
  it('awaited inside the loop body: the loop ends and the code after it runs', async () => {
    const l = await Loader.open(many, { batchSize: 1, numWorkers: 2 });
    let seen = 0;
    for await (const _ of l) {
      seen++;
      if (seen === 3) await l.close();
    }
    expect(seen).toBe(3);
    await l.close();
  }, 20_000);

  it('from elsewhere while the loop waits for a batch: the loop ends', async () => {
    const l = await Loader.open(many, { batchSize: 1, numWorkers: 1, batchesAhead: 1, osCache: false });
    let seen = 0;
    for await (const _ of l) {
      seen++;
      if (seen === 2) setImmediate(() => void l.close());
      // Give the close a turn while the next batch is awaited.
      await new Promise((r) => setImmediate(r));
    }
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(seen).toBeLessThan(400);
    // Iterating a closed loader is an error, as before.
    await expect(
      (async () => {
        for await (const _ of l) void _;
      })(),
    ).rejects.toThrow(/the loader is closed/);
  }, 20_000);
});

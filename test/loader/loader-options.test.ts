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
    expect(await ids(twelve, { batchSize: 1e9, dropLast: false, numWorkers: 1 })).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]);
    // With dropLast (the default) an epoch would have no batch at all: refused naming dropLast (issue 22), never silently empty.
    const none = await refused(Loader.open(twelve, { batchSize: 1e9, numWorkers: 1 }));
    expect(none.code).toBe('BAD_OPTIONS');
    expect(none.message).toMatch(/dropLast/);
    const e = await refused(Loader.open(twelve, { batchSize: 2 ** 40 }));
    expect(e.code).toBe('BAD_OPTIONS');
    expect(e.message).toMatch(/batchSize must be an integer from 1 to 4294967295, got 1099511627776/);
  });

  // One loader for the two large legal values below: a worker start costs more than all the checks.
  // batchSize 1 leaves one row per batch, so 256 workers must come down to 1.
  const wideOpts: LoaderOptions = { batchSize: 1, numWorkers: 256, batchesAhead: 1024 };
  let wide: Loader;
  beforeAll(async () => {
    wide = await Loader.open(twelve, wideOpts);
  });
  afterAll(() => wide.close());

  it('batchesAhead: at most 1024 (1e6 is refused by name); a large legal value on a short epoch allocates only the epoch', async () => {
    const e = await refused(Loader.open(twelve, { batchSize: 4, batchesAhead: 1e6 }));
    expect(e.message).toBe('batchesAhead must be an integer from 1 to 1024, got 1000000');
    const got: number[][] = [];
    for await (const b of wide) got.push([...b.sampleIds]);
    expect(got).toEqual(Array.from({ length: 12 }, (_, i) => [i]));
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
    expect(wide.numWorkers).toBe(1);
    expect(effectiveWorkers(256, 1000, 4)).toBe(64);
    expect(effectiveWorkers(256, 1000, 96)).toBe(192);
    expect(effectiveWorkers(3, 1000, 2)).toBe(3);
    for (const n of [0, 0.5, -2])
      expect((await refused(Loader.open(twelve, { batchSize: 4, numWorkers: n }))).message).toMatch(/numWorkers must be an integer/);
  });
});

describe('resume states carry their loader', () => {
  const opts: LoaderOptions = { batchSize: 3, order: 'random', seed: 5, numWorkers: 1 };
  // Every option the identity carries differs from opts here (and the file's content): each
  // difference is named in turn below. 6 indices on 2 ranks, batches of 2: 1 batch an epoch.
  const foreignOpts: LoaderOptions = {
    batchSize: 2,
    order: 'sequential',
    seed: 6,
    indices: [0, 1, 2, 3, 4, 5],
    distributed: { rank: 0, worldSize: 2 },
    numWorkers: 1,
  };

  // Three loaders for the whole describe (each start boots a worker): `saver` saves the
  // state after 2 batches, `copy` (a byte-identical file elsewhere, same options) resumes it,
  // `foreign` (another file, every option different) refuses it. resume() checks before it
  // changes anything, so the refused states leave these loaders as they were.
  let saver: Loader;
  let copy: Loader;
  let foreign: Loader;
  let state: LoaderState;
  beforeAll(async () => {
    [saver, copy, foreign] = await Promise.all([Loader.open(twelve, opts), Loader.open(twelveCopy, opts), Loader.open(other, foreignOpts)]);
    let n = 0;
    for await (const _ of saver) if (++n === 2) break;
    state = JSON.parse(JSON.stringify(saver.state())) as LoaderState;
  });
  afterAll(() => Promise.all([saver.close(), copy.close(), foreign.close()]));

  function resumeError(l: Loader, s: unknown): LoaderError {
    let caught: unknown = null;
    try {
      l.resume(s as LoaderState);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(LoaderError);
    return caught as LoaderError;
  }

  it('the same file and options resume (a byte-identical copy elsewhere too: identity is content, not path)', async () => {
    expect(state).toMatchObject({
      epoch: 0,
      batch: 2,
      seed: 5,
      loader: { batchSize: 3, order: 'random', seed: 5, length: 4, indices: null, distributed: null },
    });
    copy.resume(state);
    const rest: number[] = [];
    for await (const b of copy) rest.push(b.index);
    expect(rest).toEqual([2, 3]);
  });

  it('another file, batch size, order, seed, indices or distributed rank is a FOREIGN_STATE naming it', () => {
    // The foreign loader's identity carries each of its options (not a constant or a default).
    const theirs = foreign.state().loader;
    expect(theirs).toMatchObject({ batchSize: 2, order: 'sequential', seed: 6, length: 1, distributed: '0/2' });
    expect(theirs.indices).toMatch(/^[0-9a-f]{64}$/);
    // The saved state, then with each difference fixed in turn (to the foreign loader's
    // value): resume() names the next one, so every field of the identity is compared.
    const cases: Array<[keyof LoaderState['loader'], RegExp]> = [
      ['file', /its file content \(sha256 of its header and tables\) is [0-9a-f]{12}…, this loader over .*other\.beton has/],
      ['batchSize', /its batchSize is 3, this loader .* has 2/],
      ['order', /its order is "random", .* has "sequential"/],
      ['seed', /its seed is 5, .* has 6/],
      ['indices', /its indices \(sha256\) is null, .* has "?[0-9a-f]{12}…/],
      ['distributed', /its distributed rank\/worldSize is null, .* has "0\/2"/],
      ['length', /its batches per epoch is 4, .* has 1/],
    ];
    const loader = { ...state.loader };
    for (const [key, want] of cases) {
      const e = resumeError(foreign, { ...state, loader: { ...loader } });
      expect(e.code).toBe('FOREIGN_STATE');
      expect(e.message).toMatch(want);
      expect(e.message).toMatch(/open the loader with the file and options the state was saved with/);
      Object.assign(loader, { [key]: theirs[key] });
    }
  });

  it('null, garbage, identity-less and impossible states are refused with what a state is', () => {
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
      const e = resumeError(saver, s);
      expect([e.code, e.message]).toEqual([code, expect.stringMatching(want)]);
    }
  });
});

describe('close() during for await', () => {
  it('awaited inside the loop body: the loop ends and the code after it runs', async () => {
    const l = await Loader.open(many, { batchSize: 1, numWorkers: 1 });
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

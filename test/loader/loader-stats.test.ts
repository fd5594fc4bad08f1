/**
 * The loader's wait record stays bounded (a million-batch epoch must not grow it without end)
 * while the waits after a snapshot — what bench-loader and the profiler's points read — are
 * the right ones, the latest WAIT_WINDOW or more when there were more.
 */
import { describe, expect, it } from 'vitest';
import { recordWait, WAIT_WINDOW, waitsSince, type LoaderStats } from '../../core/loader/loader-stats.js';

const fresh = (): LoaderStats => ({ batches: 0, waitMs: [], workerBusyMs: 0, pagesRead: 0, ordersPrefetched: 0 });
const snapshot = (s: LoaderStats): LoaderStats => ({ ...s, waitMs: [...s.waitMs] });

describe('loader wait record', () => {
  it('keeps between WAIT_WINDOW and twice that many, the latest, and counts every batch', () => {
    const s = fresh();
    const total = 5 * WAIT_WINDOW + 17;
    for (let k = 0; k < total; k++) recordWait(s, k);
    expect(s.batches).toBe(total);
    expect(s.waitMs.length).toBeGreaterThanOrEqual(WAIT_WINDOW);
    expect(s.waitMs.length).toBeLessThan(2 * WAIT_WINDOW);
    expect(s.waitMs.at(-1)).toBe(total - 1);
    expect(s.waitMs[0]).toBe(total - s.waitMs.length);
  });

  it('waitsSince gives the batches after a snapshot, across a trim too', () => {
    const s = fresh();
    for (let k = 0; k < 10; k++) recordWait(s, k);
    const before = snapshot(s);
    for (let k = 10; k < 15; k++) recordWait(s, k);
    expect(waitsSince(before, s)).toEqual([10, 11, 12, 13, 14]);
    expect(waitsSince(snapshot(s), s)).toEqual([]);
    // More batches than the record keeps: the latest ones it has.
    const mid = snapshot(s);
    for (let k = 15; k < 15 + 3 * WAIT_WINDOW; k++) recordWait(s, k);
    const since = waitsSince(mid, s);
    expect(since.length).toBe(s.waitMs.length);
    expect(since.at(-1)).toBe(14 + 3 * WAIT_WINDOW);
    // Fewer than the record holds after a trim: exactly those.
    const late = snapshot(s);
    recordWait(s, -1);
    recordWait(s, -2);
    expect(waitsSince(late, s)).toEqual([-1, -2]);
  });
});

/**
 * How many distinct pages an order touches per window of consecutive samples — the
 * quantity quasi_random exists to keep small. Used by tests and the profiler to compare
 * orders on a real allocation table.
 */
export interface PageLocality {
  /** Windows measured (the last, partial window is left out unless it is the only one). */
  windows: number;
  /** Mean and maximum distinct pages per window. */
  mean: number;
  max: number;
}

export function pageLocality(order: Uint32Array, pagesOfSample: (sampleId: number) => readonly number[], windowSize: number): PageLocality {
  if (!Number.isSafeInteger(windowSize) || windowSize < 1) throw new RangeError(`windowSize must be an integer ≥ 1, got ${windowSize}`);
  const full = Math.floor(order.length / windowSize);
  const windows = full > 0 ? full : order.length > 0 ? 1 : 0;
  let sum = 0;
  let max = 0;
  const seen = new Set<number>();
  for (let w = 0; w < windows; w++) {
    seen.clear();
    const end = Math.min(order.length, (w + 1) * windowSize);
    for (let k = w * windowSize; k < end; k++) for (const p of pagesOfSample(order[k] as number)) seen.add(p);
    sum += seen.size;
    if (seen.size > max) max = seen.size;
  }
  return { windows, mean: windows > 0 ? sum / windows : 0, max };
}

/** Median of a non-empty list; the mean of the two middle values for even lengths. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function min(values: readonly number[]): number {
  return Math.min(...values);
}

export function max(values: readonly number[]): number {
  return Math.max(...values);
}

/** Rounds for display and JSON: throughput numbers are noisy well before the 4th digit. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

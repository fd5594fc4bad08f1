/**
 * A default batch size that fits the dataset: the usual default when the dataset holds that
 * many samples, else the largest power of two it holds (a loader that drops the last partial
 * batch then still yields one, and a sweep does not refuse the dataset as too small).
 */
export function fitBatchSize(preferred: string | number, numSamples: number): number {
  const want = Number(preferred);
  const n = Math.max(1, Math.floor(numSamples));
  if (Number.isInteger(want) && want > 0 && want <= n) return want;
  return 2 ** Math.floor(Math.log2(n));
}

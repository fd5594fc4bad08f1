/**
 * Evenly spaced axis ticks: recharts' own for a `dataMin`–`dataMax` domain of whole numbers
 * land unevenly (1, 3, 5, 6). A step of 1, 2 or 5 times a power of ten, at most `most`
 * ticks, each a multiple of the step inside [min, max].
 */
export function evenTicks(min: number, max: number, most = 6): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max < min) return [];
  if (max === min) return [min];
  const span = max - min;
  let step = 0;
  for (let p = Math.floor(Math.log10(span / most)) - 1; step === 0; p++) {
    for (const m of [1, 2, 5]) {
      const s = m * 10 ** p;
      if (Math.floor(max / s) - Math.ceil(min / s) + 1 <= most) {
        step = s;
        break;
      }
    }
  }
  const out: number[] = [];
  // Multiples of the step, computed from integers so 0.1 + 0.2 never shows as 0.30000000000000004.
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  for (let k = Math.ceil(min / step); k * step <= max + 1e-9; k++) out.push(Number((k * step).toFixed(digits)));
  return out;
}

/**
 * float16 (IEEE 754 binary16), the one conversion every layer uses: the NDArray encoding
 * of a '<f2' field (format/dtype.ts), the loader's casts and the NormalizeImage table
 * (pipeline/). numpy's semantics: `np.float64(x).astype(np.float16)` rounds once, to the
 * nearest even, straight from the double — not through float32, which rounds twice and
 * lands on a float16 tie for values just past one. torch rounds through float32
 * (`toFloat16Bits`), which the loader's casts follow. test/format/float16.test.ts checks both
 * against numpy and torch's rule on ties, subnormals and the overflow edge.
 */

/** float64 → float16 bits, rounded once to nearest even (numpy's astype). */
export function float16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  // Subnormals (and zero): steps of 2^-24; 1024 steps is the smallest normal, encoded alike.
  if (a < 2 ** -14) return sign | roundEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  if (e > 15) return sign | 0x7c00;
  // a · 2^(10−e) is exact (a power-of-two scaling); a carry to 2048 moves into the exponent,
  // and past 65504 into infinity.
  const bits = ((e + 15) << 10) + roundEven(a * 2 ** (10 - e)) - 1024;
  return sign | Math.min(bits, 0x7c00);
}

/**
 * Float → float16 bits through float32 (round to nearest even twice), as torch's
 * `.type(torch.float16)` converts a float64 tensor (c10::Half is built from a float): the
 * float32 rounding, then numpy's single rounding (exact from a float32). For float32 values
 * (and every value a uint8 or float16 can hold) it equals {@link float16Bits}.
 */
export function toFloat16Bits(x: number): number {
  return float16Bits(Math.fround(x));
}

/** The number a float16 bit pattern holds. */
export function float16Value(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function roundEven(q: number): number {
  const r = Math.round(q);
  return r - q === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

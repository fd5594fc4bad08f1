import { BetonFormatError } from './errors.js';

/** Reads a little-endian u64 as a JS number, refusing values beyond 2^53 (no real file has them). */
export function readU64(v: DataView, offset: number, file = '<buffer>'): number {
  const big = v.getBigUint64(offset, true);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new BetonFormatError(
      'BAD_POINTER',
      `${file}: 64-bit value ${big} at byte ${v.byteOffset + offset} is beyond any plausible file offset or count`,
      { file, offset: v.byteOffset + offset },
    );
  }
  return Number(big);
}

export function writeU64(v: DataView, offset: number, value: number): void {
  v.setBigUint64(offset, BigInt(value), true);
}

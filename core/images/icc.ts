import { ascii } from './bytes.js';

/** An ICC profile's description ('desc' tag, v2 text or v4 'mluc'), or null. */
export function iccDescription(icc: Uint8Array): string | null {
  if (icc.length < 132) return null;
  const v = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = v.getUint32(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= icc.length; i++) {
    const t = 132 + i * 12;
    if (ascii(icc, t, t + 4) !== 'desc') continue;
    const off = v.getUint32(t + 4);
    const size = v.getUint32(t + 8);
    if (off + Math.min(size, 16) > icc.length || off + 12 > icc.length) return null;
    const type = ascii(icc, off, off + 4);
    if (type === 'desc') {
      const n = v.getUint32(off + 8);
      if (off + 12 + n > icc.length) return null;
      return ascii(icc, off + 12, off + 12 + n).replace(/\0+$/, '');
    }
    if (type === 'mluc' && off + 28 <= icc.length) {
      const len = v.getUint32(off + 20);
      const at = off + v.getUint32(off + 24);
      if (at + len > icc.length) return null;
      return Buffer.from(icc.subarray(at, at + len))
        .swap16()
        .toString('utf16le');
    }
    return null;
  }
  return null;
}

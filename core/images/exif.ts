import { ascii } from './bytes.js';

/**
 * EXIF orientation (tag 0x0112 in IFD0) from a TIFF structure (an Exif APP1 segment after
 * its "Exif\0\0"): the value, 1 when the tag is absent, null when the data is malformed.
 */
export function exifOrientation(tiff: Uint8Array): number | null {
  if (tiff.length < 8) return null;
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const v = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  if (v.getUint16(2, le) !== 42) return null;
  const ifd = v.getUint32(4, le);
  if (ifd < 8 || ifd + 2 > tiff.length) return null;
  const n = v.getUint16(ifd, le);
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > tiff.length) return null;
    if (v.getUint16(e, le) !== 0x0112) continue;
    const type = v.getUint16(e + 2, le);
    if (type === 3 || type === 8) return v.getUint16(e + 8, le); // SHORT (SSHORT)
    if (type === 4 || type === 9) return v.getUint32(e + 8, le); // LONG, seen in the wild
    return null;
  }
  return 1;
}

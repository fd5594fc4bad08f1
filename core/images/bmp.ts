// torchvision's ImageFolder lists .bmp files, and libvips has no BMP loader.
import type { RGBPixels } from '../fields/image-codec.js';
import { checkSize, scaleTo8, truncatedAs } from './raster.js';
import { FIX_FORMAT, unreadable } from './read-error.js';

/** Windows BMP: 1/4/8-bit palette (also RLE4/RLE8), 16/32-bit bit fields, 24/32-bit BGR. */
export function decodeBmp(b: Uint8Array): RGBPixels {
  if (b.length < 26) throw truncatedAs('BMP');
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const dataOff = v.getUint32(10, true);
  const hs = v.getUint32(14, true);
  let width: number, height: number, bpp: number, comp: number, colours: number, palEntry: number;
  if (hs === 12) {
    width = v.getUint16(18, true);
    height = v.getInt16(20, true);
    bpp = v.getUint16(24, true);
    comp = 0;
    colours = 0;
    palEntry = 3;
  } else if (hs >= 40 && hs <= 124) {
    if (b.length < 14 + 40) throw truncatedAs('BMP');
    width = v.getInt32(18, true);
    height = v.getInt32(22, true);
    bpp = v.getUint16(28, true);
    comp = v.getUint32(30, true);
    colours = v.getUint32(46, true);
    palEntry = 4;
  } else {
    throw unreadable(`the BMP header is of an unknown kind (${hs} bytes)`, FIX_FORMAT);
  }
  const topDown = height < 0;
  height = Math.abs(height);
  checkSize(width, height, 'BMP');
  if (comp === 4 || comp === 5)
    throw unreadable(`the BMP holds an embedded ${comp === 4 ? 'JPEG' : 'PNG'}, which is not supported`, FIX_FORMAT);
  const rle = comp === 1 || comp === 2;
  const fields = comp === 3 || comp === 6;
  if (!(comp === 0 || (comp === 1 && bpp === 8) || (comp === 2 && bpp === 4) || (fields && (bpp === 16 || bpp === 32)))) {
    throw unreadable(`the BMP uses compression ${comp} with ${bpp} bits per pixel, which is not supported`, FIX_FORMAT);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw unreadable(`the BMP has ${bpp} bits per pixel, which is not supported`, FIX_FORMAT);
  let masks = bpp === 16 ? [0x7c00, 0x03e0, 0x001f] : [0xff0000, 0xff00, 0xff];
  let palOff = 14 + hs;
  if (fields) {
    const at = 54; // right after a 40-byte header, or inside a V2+ header: the same offset
    if (b.length < at + 12) throw truncatedAs('BMP');
    masks = [v.getUint32(at, true), v.getUint32(at + 4, true), v.getUint32(at + 8, true)];
    if (hs === 40) palOff += comp === 6 ? 16 : 12;
  }
  const palette: number[] = [];
  if (bpp <= 8) {
    const n = colours > 0 && colours <= 1 << bpp ? colours : 1 << bpp;
    for (let i = 0; i < n; i++) {
      const at = palOff + i * palEntry;
      if (at + 3 > b.length || at + 3 > dataOff) break;
      palette.push(b[at + 2]!, b[at + 1]!, b[at]!);
    }
  }
  const out = new Uint8Array(width * height * 3);
  const putIndex = (x: number, row: number, idx: number): void => {
    const o = (row * width + x) * 3;
    if (idx * 3 + 2 < palette.length) {
      out[o] = palette[idx * 3]!;
      out[o + 1] = palette[idx * 3 + 1]!;
      out[o + 2] = palette[idx * 3 + 2]!;
    }
  };
  if (rle) {
    // RLE bitmaps are bottom-up; pixels the stream skips keep palette entry 0's colour.
    for (let i = 0; i < width * height; i++) putIndex(i % width, Math.floor(i / width), 0);
    let p = dataOff;
    let x = 0;
    let y = height - 1;
    const need = (n: number): void => {
      if (p + n > b.length) throw truncatedAs('BMP');
    };
    const put = (idx: number): void => {
      if (x < width && y >= 0) putIndex(x, y, idx);
      x++;
    };
    for (;;) {
      need(2);
      const n = b[p]!;
      const c = b[p + 1]!;
      p += 2;
      if (n > 0) {
        for (let i = 0; i < n; i++) put(bpp === 8 ? c : i % 2 === 0 ? c >> 4 : c & 15);
      } else if (c === 0) {
        x = 0;
        y--;
      } else if (c === 1) {
        break;
      } else if (c === 2) {
        need(2);
        x += b[p]!;
        y -= b[p + 1]!;
        p += 2;
      } else {
        const bytes = bpp === 8 ? c : Math.ceil(c / 2);
        need(bytes);
        for (let i = 0; i < c; i++) put(bpp === 8 ? b[p + i]! : i % 2 === 0 ? b[p + (i >> 1)]! >> 4 : b[p + (i >> 1)]! & 15);
        p += bytes + (bytes % 2);
      }
      if (y < 0) break;
    }
    return { data: out, width, height };
  }
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (dataOff + stride * (height - 1) + Math.ceil((bpp * width) / 8) > b.length) throw truncatedAs('BMP');
  const shifts = masks.map((m) => (m === 0 ? 0 : 31 - Math.clz32(m & -m)));
  const maxes = masks.map((m, i) => (m >>> shifts[i]!) >>> 0);
  for (let y = 0; y < height; y++) {
    const row = dataOff + (topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      if (bpp <= 8) {
        const bit = x * bpp;
        putIndex(x, y, (b[row + (bit >> 3)]! >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1));
      } else if (bpp === 24) {
        const at = row + x * 3;
        out[o] = b[at + 2]!;
        out[o + 1] = b[at + 1]!;
        out[o + 2] = b[at]!;
      } else {
        const px = bpp === 16 ? v.getUint16(row + x * 2, true) : v.getUint32(row + x * 4, true);
        for (let c = 0; c < 3; c++) out[o + c] = maxes[c] ? scaleTo8(((px & masks[c]!) >>> shifts[c]!) >>> 0, maxes[c]!) : 0;
      }
    }
  }
  return { data: out, width, height };
}

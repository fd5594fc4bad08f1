// torchvision's ImageFolder lists .ppm/.pgm files, and libvips has no PNM loader.
import type { RGBPixels } from '../fields/image-codec.js';
import { ascii } from './bytes.js';
import { checkSize, scaleTo8, truncatedAs } from './raster.js';
import { FIX_DATA, unreadable } from './read-error.js';

/** Netpbm P1–P6 (PBM/PGM/PPM, ASCII or binary, maxval up to 65535). */
export function decodePnm(b: Uint8Array): RGBPixels {
  const kind = b[1]! - 0x30;
  let p = 2;
  const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
  const skip = (): void => {
    for (;;) {
      while (p < b.length && isSpace(b[p]!)) p++;
      if (b[p] !== 0x23) return; // '#'
      while (p < b.length && b[p] !== 10 && b[p] !== 13) p++;
    }
  };
  const int = (): number => {
    skip();
    const s = p;
    while (p < b.length && b[p]! >= 0x30 && b[p]! <= 0x39) p++;
    if (s === p) throw p >= b.length ? truncatedAs('PNM') : unreadable('the PNM header is corrupt', FIX_DATA);
    return Number(ascii(b, s, p));
  };
  const width = int();
  const height = int();
  const bitmap = kind === 1 || kind === 4;
  const maxval = bitmap ? 1 : int();
  checkSize(width, height, 'PNM');
  if (!(maxval >= 1 && maxval <= 65535)) throw unreadable(`the PNM maxval ${maxval} is outside 1..65535`, FIX_DATA);
  const ch = kind === 3 || kind === 6 ? 3 : 1;
  const n = width * height * ch;
  const samples = new Uint16Array(n);
  if (kind <= 3) {
    for (let i = 0; i < n; i++) {
      if (kind === 1) {
        skip();
        if (p >= b.length) throw truncatedAs('PBM');
        samples[i] = b[p++] === 0x31 ? 1 : 0;
      } else samples[i] = int();
    }
  } else {
    p++; // the single whitespace after the header
    if (kind === 4) {
      const stride = Math.ceil(width / 8);
      if (p + stride * height > b.length) throw truncatedAs('PBM');
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) samples[y * width + x] = (b[p + y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1;
    } else {
      const wide = maxval > 255;
      if (p + n * (wide ? 2 : 1) > b.length) throw truncatedAs(kind === 5 ? 'PGM' : 'PPM');
      for (let i = 0; i < n; i++) samples[i] = wide ? (b[p + 2 * i]! << 8) | b[p + 2 * i + 1]! : b[p + i]!;
    }
  }
  const to8 = (s: number): number => (bitmap ? (s ? 0 : 255) : maxval === 65535 ? s >> 8 : scaleTo8(Math.min(s, maxval), maxval));
  const out = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    for (let c = 0; c < 3; c++) out[i * 3 + c] = to8(samples[ch === 3 ? i * 3 + c : i]!);
  }
  return { data: out, width, height };
}

/**
 * Odd source images, generated at test time (no checked-in binaries): the cases
 * `loadRGB` / `probePassThrough` must get right, written as an ImageFolder
 * (`root/<class>/<file>`) together with the outcome expected for each file, so a
 * build test can run over the same folder with onError 'fail' or 'skip'.
 *
 * Most files are written with sharp; what sharp cannot write (Adobe CMYK and YCCK
 * JPEGs with known ink values, RGB-JPEG, 12-bit JPEG, exact EXIF segments, every PNG
 * colour type and bit depth, BMP, PNM) is crafted here byte by byte.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';

export type RGB = readonly [number, number, number];

export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A colour expected at one pixel of the decoded image, within `tol` per channel. */
export interface Probe {
  x: number;
  y: number;
  rgb: RGB;
  tol: number;
}

export interface OddImageCase {
  /** Short id, e.g. 'jpeg-cmyk'. */
  name: string;
  /** Class folder (ImageFolder label name). */
  cls: string;
  /** Absolute path of the file. */
  path: string;
  /** Whether ImageFolderSource lists it (torchvision's IMG_EXTENSIONS; not .gif). */
  listed: boolean;
  /** What loading it must do. */
  outcome: 'ok' | 'error';
  /** For 'ok': decoded size. */
  width?: number;
  height?: number;
  /** For 'ok': the exact expected RGB (lossless cases). */
  exact?: Uint8Array;
  /** For 'ok': expected colours at some pixels (lossy cases). */
  probes?: Probe[];
  /** For 'error': what the message must say (besides naming the file). */
  error?: RegExp;
  /** Whether probePassThrough(path, undefined, null) returns the file's bytes. */
  passThrough: boolean;
  /** What the file is, in words. */
  note: string;
}

export interface OddImagesOptions {
  /** Which cases to write (default: all). */
  only?: 'ok' | 'error';
  /**
   * Write `broken/fifo.jpg`, a named pipe (default true). Anything that opens listed files
   * with a blocking read (readFileSync, createReadStream) hangs on it: that is the point.
   */
  fifo?: boolean;
}

// ---------------------------------------------------------------------------
// Pixels and EXIF orientation
// ---------------------------------------------------------------------------

export function makePixels(width: number, height: number, at: (x: number, y: number) => RGB): Pixels {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(at(x, y), (y * width + x) * 3);
  }
  return { data, width, height };
}

export const RED: RGB = [230, 30, 30];
export const GREEN: RGB = [30, 200, 60];
export const BLUE: RGB = [40, 60, 220];
export const YELLOW: RGB = [240, 220, 40];

/** Four flat quadrants (red, green / blue, yellow): every flip and rotation of it differs. */
export function quadrants(width = 48, height = 32): Pixels {
  return makePixels(width, height, (x, y) => (y < height / 2 ? (x < width / 2 ? RED : GREEN) : x < width / 2 ? BLUE : YELLOW));
}

/**
 * What a viewer shows for stored pixels `s` tagged with EXIF orientation `o`, from the
 * EXIF definition of where stored row 0 / column 0 go (independent of sharp's code).
 */
export function orient(s: Pixels, o: number): Pixels {
  const { width: w, height: h } = s;
  const swap = o >= 5;
  const W = swap ? h : w;
  const H = swap ? w : h;
  const out = new Uint8Array(W * H * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let X: number, Y: number;
      switch (o) {
        case 1:
          [X, Y] = [x, y];
          break;
        case 2:
          [X, Y] = [w - 1 - x, y];
          break;
        case 3:
          [X, Y] = [w - 1 - x, h - 1 - y];
          break;
        case 4:
          [X, Y] = [x, h - 1 - y];
          break;
        case 5:
          [X, Y] = [y, x];
          break;
        case 6:
          [X, Y] = [h - 1 - y, x];
          break;
        case 7:
          [X, Y] = [h - 1 - y, w - 1 - x];
          break;
        case 8:
          [X, Y] = [y, w - 1 - x];
          break;
        default:
          throw new Error(`orientation ${o}`);
      }
      out.set(s.data.subarray((y * w + x) * 3, (y * w + x) * 3 + 3), (Y * W + X) * 3);
    }
  }
  return { data: out, width: W, height: H };
}

/** Probes at the centre of each quadrant, with the colour found there in `p`. */
export function quadrantProbes(p: Pixels, tol: number): Probe[] {
  const out: Probe[] = [];
  for (const fy of [0.25, 0.75]) {
    for (const fx of [0.25, 0.75]) {
      const x = Math.floor(p.width * fx);
      const y = Math.floor(p.height * fy);
      const i = (y * p.width + x) * 3;
      out.push({ x, y, rgb: [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!], tol });
    }
  }
  return out;
}

/** An APP1 Exif segment whose IFD0 holds only Orientation (tag 0x0112, SHORT). */
export function exifSegment(orientation: number, byteOrder: 'II' | 'MM' = 'II'): Uint8Array {
  const le = byteOrder === 'II';
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write(byteOrder, 0, 'latin1');
  const u16 = (v: number, at: number): number => (le ? tiff.writeUInt16LE(v, at) : tiff.writeUInt16BE(v, at));
  const u32 = (v: number, at: number): number => (le ? tiff.writeUInt32LE(v, at) : tiff.writeUInt32BE(v, at));
  u16(42, 2);
  u32(8, 4);
  u16(1, 8); // one entry
  u16(0x0112, 10);
  u16(3, 12); // SHORT
  u32(1, 14);
  u16(orientation, 18); // value, left-justified in the 4-byte field
  u32(0, 22); // no next IFD
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xffe1, 0);
  seg.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([seg, body]);
}

/** Offset of the first byte after a JPEG's first SOS segment (where scan data starts). */
export function scanStart(jpeg: Uint8Array): number {
  let p = 2;
  while (p + 4 <= jpeg.length) {
    const m = jpeg[p + 1]!;
    const len = (jpeg[p + 2]! << 8) | jpeg[p + 3]!;
    if (m === 0xda) return p + 2 + len;
    p += 2 + len;
  }
  throw new Error('no SOS marker');
}

/** Inserts marker segments right after a JPEG's SOI. */
export function insertAfterSoi(jpeg: Uint8Array, ...segments: Uint8Array[]): Uint8Array {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

// ---------------------------------------------------------------------------
// A minimal JPEG writer: flat 8x8 blocks (DC only), any component count,
// optional JFIF / Adobe markers and a 12-bit precision variant.
// ---------------------------------------------------------------------------

export interface CraftJpegOptions {
  width: number;
  height: number;
  /** Component ids and sample values (0..255); sampled at each 8x8 block's top-left pixel. */
  components: Array<{ id: number; at: (x: number, y: number) => number }>;
  jfif?: boolean;
  /** Adobe APP14 colour transform: 0 none (RGB/CMYK), 1 YCbCr, 2 YCCK. */
  adobe?: 0 | 1 | 2;
  /** 12 writes a valid 12-bit file (samples scaled by 16). Default 8. */
  precision?: 8 | 12;
  /** Start-of-frame marker: 0xffc0 baseline (default) or 0xffc1 extended sequential. */
  sof?: 0xffc0 | 0xffc1;
}

const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

function huffmanCodes(bits: number[], vals: number[]): Map<number, { code: number; len: number }> {
  const out = new Map<number, { code: number; len: number }>();
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < bits[len - 1]!; i++) out.set(vals[k++]!, { code: code++, len });
    code <<= 1;
  }
  return out;
}

function segment(marker: number, body: Uint8Array | number[]): Buffer {
  const b = Buffer.from(body);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(marker, 0);
  head.writeUInt16BE(b.length + 2, 2);
  return Buffer.concat([head, b]);
}

export function craftJpeg(o: CraftJpegOptions): Uint8Array {
  const precision = o.precision ?? 8;
  const nc = o.components.length;
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  if (o.jfif) parts.push(segment(0xffe0, [...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  if (o.adobe !== undefined) parts.push(segment(0xffee, [...Buffer.from('Adobe', 'latin1'), 0, 100, 0, 0, 0, 0, o.adobe]));
  // DC-only blocks: quantiser q gives DC = 8*(v - shift)/q; q = 8 (8-bit) / 128 (12-bit,
  // samples v*16) both code exactly v - 128, so the entropy data is the same.
  const q = precision === 12 ? 128 : 8;
  parts.push(segment(0xffdb, [0, ...new Array<number>(64).fill(q)]));
  const sof = [precision, o.height >> 8, o.height & 255, o.width >> 8, o.width & 255, nc];
  for (const c of o.components) sof.push(c.id, 0x11, 0);
  parts.push(segment(o.sof ?? 0xffc0, sof));
  parts.push(segment(0xffc4, [0x00, ...DC_BITS, ...DC_VALS]));
  parts.push(segment(0xffc4, [0x10, 1, ...new Array<number>(15).fill(0), 0x00])); // AC: only EOB, code '0'
  const sos = [nc];
  for (const c of o.components) sos.push(c.id, 0x00);
  sos.push(0, 63, 0);
  parts.push(segment(0xffda, sos));

  const dc = huffmanCodes(DC_BITS, DC_VALS);
  const bytes: number[] = [];
  let acc = 0;
  let nbits = 0;
  const put = (code: number, len: number): void => {
    for (let i = len - 1; i >= 0; i--) {
      acc = (acc << 1) | ((code >> i) & 1);
      if (++nbits === 8) {
        bytes.push(acc);
        if (acc === 0xff) bytes.push(0);
        acc = 0;
        nbits = 0;
      }
    }
  };
  const prev = new Array<number>(nc).fill(0);
  for (let by = 0; by < Math.ceil(o.height / 8); by++) {
    for (let bx = 0; bx < Math.ceil(o.width / 8); bx++) {
      o.components.forEach((c, ci) => {
        const v = Math.max(0, Math.min(255, Math.round(c.at(bx * 8, by * 8)))) - 128;
        const diff = v - prev[ci]!;
        prev[ci] = v;
        const mag = Math.abs(diff);
        const cat = mag === 0 ? 0 : Math.floor(Math.log2(mag)) + 1;
        const h = dc.get(cat)!;
        put(h.code, h.len);
        if (cat > 0) put(diff > 0 ? diff : diff + (1 << cat) - 1, cat);
        put(0, 1); // EOB
      });
    }
  }
  if (nbits > 0) put((1 << (8 - nbits)) - 1, 8 - nbits);
  parts.push(Buffer.from(bytes), Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

const clamp8 = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));
const yOf = (r: number, g: number, b: number): number => clamp8(0.299 * r + 0.587 * g + 0.114 * b);
const cbOf = (r: number, g: number, b: number): number => clamp8(-0.168736 * r - 0.331264 * g + 0.5 * b + 128);
const crOf = (r: number, g: number, b: number): number => clamp8(0.5 * r - 0.418688 * g - 0.081312 * b + 128);

/** Ink amounts 0..255 (255 = full ink) per pixel. */
export type Ink = readonly [c: number, m: number, y: number, k: number];

/**
 * A 4-component JPEG as Photoshop writes one: Adobe marker, samples stored inverted
 * (255 = no ink). 'cmyk' stores the four inks (transform 0); 'ycck' stores Y/Cb/Cr of
 * the CMY inks plus inverted K (transform 2), as libjpeg's CMYK->YCCK converter does.
 */
export function craftCmykJpeg(width: number, height: number, ink: (x: number, y: number) => Ink, kind: 'cmyk' | 'ycck'): Uint8Array {
  const comp = (id: number, f: (i: Ink) => number): { id: number; at: (x: number, y: number) => number } => ({
    id,
    at: (x, y) => f(ink(x, y)),
  });
  if (kind === 'cmyk') {
    return craftJpeg({ width, height, adobe: 0, components: [0, 1, 2, 3].map((i) => comp(i + 1, (k) => 255 - k[i]!)) });
  }
  return craftJpeg({
    width,
    height,
    adobe: 2,
    components: [
      comp(1, ([c, m, y]) => yOf(c, m, y)),
      comp(2, ([c, m, y]) => cbOf(c, m, y)),
      comp(3, ([c, m, y]) => crOf(c, m, y)),
      comp(4, ([, , , k]) => 255 - k),
    ],
  });
}

// ---------------------------------------------------------------------------
// PNG, BMP and PNM writers
// ---------------------------------------------------------------------------

function pngChunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

export interface CraftPngOptions {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
  colorType: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** Samples, row-major, channels interleaved, in the file's bit depth. */
  samples: ArrayLike<number>;
  palette?: RGB[];
  /** tRNS chunk contents. */
  trns?: number[];
}

export function craftPng(o: CraftPngOptions): Uint8Array {
  const ch = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[o.colorType];
  const rowBytes = Math.ceil((o.width * ch * o.depth) / 8);
  const raw = Buffer.alloc((rowBytes + 1) * o.height);
  for (let y = 0; y < o.height; y++) {
    const row = y * (rowBytes + 1) + 1;
    for (let i = 0; i < o.width * ch; i++) {
      const v = o.samples[y * o.width * ch + i]!;
      if (o.depth === 16) raw.writeUInt16BE(v, row + i * 2);
      else if (o.depth === 8) raw[row + i] = v;
      else {
        const bit = i * o.depth;
        raw[row + (bit >> 3)]! |= v << (8 - o.depth - (bit & 7));
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(o.width, 0);
  ihdr.writeUInt32BE(o.height, 4);
  ihdr[8] = o.depth;
  ihdr[9] = o.colorType;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    ...(o.palette ? [pngChunk('PLTE', Buffer.from(o.palette.flat()))] : []),
    ...(o.trns ? [pngChunk('tRNS', Buffer.from(o.trns))] : []),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** A 1-bit grey PNG that claims `width`x`height` but holds one row of image data. */
export function craftPngHeader(width: number, height: number): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(1 + Math.ceil(width / 8)))),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** Windows BMP: 24-bit BGR (bottom-up, rows padded to 4 bytes) or 8-bit palette. */
export function craftBmp(
  p: Pixels,
  o: { bits: 24 | 32 | 8; topDown?: boolean; palette?: RGB[]; indices?: ArrayLike<number> } = { bits: 24 },
): Uint8Array {
  const bpp = o.bits;
  const stride = Math.ceil((p.width * bpp) / 32) * 4;
  const pal = bpp === 8 ? o.palette! : [];
  const off = 14 + 40 + pal.length * 4;
  const b = Buffer.alloc(off + stride * p.height);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(off, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(p.width, 18);
  b.writeInt32LE(o.topDown ? -p.height : p.height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(bpp, 28);
  b.writeUInt32LE(0, 30); // BI_RGB
  b.writeUInt32LE(stride * p.height, 34);
  b.writeUInt32LE(pal.length, 46);
  pal.forEach(([r, g, bl], i) => {
    b[54 + i * 4] = bl;
    b[55 + i * 4] = g;
    b[56 + i * 4] = r;
  });
  for (let y = 0; y < p.height; y++) {
    const row = off + (o.topDown ? y : p.height - 1 - y) * stride;
    for (let x = 0; x < p.width; x++) {
      const i = (y * p.width + x) * 3;
      if (bpp === 8) b[row + x] = o.indices![y * p.width + x]!;
      else {
        const at = row + x * (bpp / 8);
        b[at] = p.data[i + 2]!;
        b[at + 1] = p.data[i + 1]!;
        b[at + 2] = p.data[i]!;
        if (bpp === 32) b[at + 3] = 0x80; // alpha (dropped)
      }
    }
  }
  return b;
}

/** Binary PPM (P6) or PGM (P5) with a comment; maxval > 255 writes 16-bit samples. */
export function craftPnm(kind: 'P5' | 'P6', width: number, height: number, samples: ArrayLike<number>, maxval = 255): Uint8Array {
  const head = Buffer.from(`${kind}\n# odd-images\n${width} ${height}\n${maxval}\n`, 'latin1');
  const wide = maxval > 255;
  const body = Buffer.alloc(samples.length * (wide ? 2 : 1));
  for (let i = 0; i < samples.length; i++) {
    if (wide) body.writeUInt16BE(samples[i]!, i * 2);
    else body[i] = samples[i]!;
  }
  return Buffer.concat([head, body]);
}

// ---------------------------------------------------------------------------
// The folder
// ---------------------------------------------------------------------------

/** True when this process can read a file despite mode 000 (root, CAP_DAC_OVERRIDE). */
export function canReadUnreadable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

const raw = (p: Pixels): Sharp => sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: 3 } });
const LISTED = /\.(jpe?g|png|ppm|bmp|pgm|tiff?|webp)$/i;

/**
 * Writes the odd images under `root/<class>/` and returns one entry per file. Classes:
 * `jpeg`, `png`, `other` (files that load) and `broken` (files that must fail, except
 * `unreadable.jpg`, which loads when running as root: see its `outcome`). `broken` also
 * holds a directory symlink loop (`loop -> .`), which lists nothing.
 *
 * For a build over `new ImageFolderSource(root)`: the items are the cases with `listed`;
 * onError 'skip' must skip exactly the listed cases with outcome 'error' (each reason is
 * loadRGB's message, matching `error`) and keep the others; onError 'fail' must fail.
 * Sorted by class then path, the first listed failure is in `broken/`, the first class.
 * With JPEG pass-through on, a case with outcome 'error' but `passThrough` true
 * (none now: the probe's strict decode rejects re-terminated scans).
 */
export async function writeOddImages(root: string, opts: OddImagesOptions = {}): Promise<OddImageCase[]> {
  const cases: OddImageCase[] = [];
  const add = (c: Omit<OddImageCase, 'name' | 'path' | 'listed'> & { file: string; bytes?: Uint8Array }): void => {
    if (opts.only !== undefined && opts.only !== c.outcome) return;
    const dir = join(root, c.cls);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, c.file);
    if (c.bytes) writeFileSync(path, c.bytes);
    const { file: _f, bytes: _b, ...rest } = c;
    cases.push({ name: c.file, ...rest, path, listed: LISTED.test(c.file) });
  };
  const q = quadrants();
  const lossy = (p: Pixels, tol = 12): Pick<OddImageCase, 'width' | 'height' | 'probes'> => ({
    width: p.width,
    height: p.height,
    probes: quadrantProbes(p, tol),
  });
  const exact = (p: Pixels): Pick<OddImageCase, 'width' | 'height' | 'exact'> => ({ width: p.width, height: p.height, exact: p.data });

  // --- JPEG ----------------------------------------------------------------
  const baseline = await raw(q).jpeg({ quality: 95 }).toBuffer();
  add({
    cls: 'jpeg',
    file: 'baseline.jpg',
    bytes: baseline,
    outcome: 'ok',
    ...lossy(q),
    passThrough: true,
    note: 'baseline YCbCr JPEG (4:2:0)',
  });
  const progressive = await raw(q).jpeg({ quality: 95, progressive: true }).toBuffer();
  add({
    cls: 'jpeg',
    file: 'progressive.jpg',
    bytes: progressive,
    outcome: 'ok',
    ...lossy(q),
    passThrough: true,
    note: 'progressive YCbCr JPEG',
  });
  const greyPx = makePixels(48, 32, (x) => (x < 24 ? [60, 60, 60] : [200, 200, 200]));
  const grey = await raw(greyPx).toColourspace('b-w').jpeg({ quality: 95 }).toBuffer();
  add({
    cls: 'jpeg',
    file: 'grey.jpg',
    bytes: grey,
    outcome: 'ok',
    ...lossy(greyPx, 3),
    passThrough: true,
    note: 'grayscale JPEG (1 component) -> R=G=B',
  });

  // Ink patches: red (M+Y), white (no ink), black (K), yellow (Y). Colour-managed with
  // libvips' CMYK profile, so not exactly PIL's naive 255-ink values: tolerance 40.
  const inks: Array<{ ink: Ink; rgb: RGB }> = [
    { ink: [0, 255, 255, 0], rgb: [255, 0, 0] },
    { ink: [0, 0, 0, 0], rgb: [255, 255, 255] },
    { ink: [0, 0, 0, 255], rgb: [0, 0, 0] },
    { ink: [0, 0, 255, 0], rgb: [255, 255, 0] },
  ];
  const patch = (x: number, y: number): number => (y < 16 ? 0 : 2) + (x < 16 ? 0 : 1);
  const inkProbes = inks.map((p, i) => ({ x: (i % 2) * 16 + 8, y: Math.floor(i / 2) * 16 + 8, rgb: p.rgb, tol: 45 }));
  add({
    cls: 'jpeg',
    file: 'cmyk-adobe.jpg',
    bytes: craftCmykJpeg(32, 32, (x, y) => inks[patch(x, y)]!.ink, 'cmyk'),
    outcome: 'ok',
    width: 32,
    height: 32,
    probes: inkProbes,
    passThrough: false,
    note: 'CMYK JPEG, Adobe marker, inverted samples (as Photoshop writes)',
  });
  add({
    cls: 'jpeg',
    file: 'ycck-adobe.jpg',
    bytes: craftCmykJpeg(32, 32, (x, y) => inks[patch(x, y)]!.ink, 'ycck'),
    outcome: 'ok',
    width: 32,
    height: 32,
    probes: inkProbes,
    passThrough: false,
    note: 'YCCK JPEG (Adobe transform 2), as Photoshop writes',
  });
  const rgbPatches = makePixels(32, 32, (x, y) => [RED, GREEN, BLUE, YELLOW][patch(x, y)]!);
  const rgbJpeg = craftJpeg({
    width: 32,
    height: 32,
    adobe: 0,
    components: [0, 1, 2].map((c) => ({ id: 'RGB'.charCodeAt(c), at: (x: number, y: number) => rgbPatches.data[(y * 32 + x) * 3 + c]! })),
  });
  add({
    cls: 'jpeg',
    file: 'rgb-adobe.jpg',
    bytes: rgbJpeg,
    outcome: 'ok',
    ...exact(rgbPatches),
    passThrough: false,
    note: 'RGB JPEG (no colour transform, Adobe transform 0)',
  });

  for (let o = 1; o <= 8; o++) {
    const bytes = insertAfterSoi(baseline, exifSegment(o, o % 2 ? 'II' : 'MM'));
    add({
      cls: 'jpeg',
      file: `exif-orientation-${o}.jpg`,
      bytes,
      outcome: 'ok',
      ...lossy(orient(q, o)),
      passThrough: o === 1,
      note: `EXIF orientation ${o}${o >= 5 ? ' (width/height swap)' : ''}`,
    });
  }
  const badExif = Buffer.concat([Buffer.from([0xff, 0xe1, 0, 40]), Buffer.from('Exif\0\0', 'latin1'), Buffer.alloc(32, 0xab)]);
  add({
    cls: 'jpeg',
    file: 'exif-garbage.jpg',
    bytes: insertAfterSoi(baseline, badExif),
    outcome: 'ok',
    ...lossy(q),
    passThrough: false,
    note: 'unparseable Exif segment: orientation ignored',
  });
  const p3 = await raw(q).withIccProfile('p3').jpeg({ quality: 95 }).toBuffer();
  add({
    cls: 'jpeg',
    file: 'display-p3.jpg',
    bytes: p3,
    outcome: 'ok',
    ...lossy(q),
    passThrough: false,
    note: 'JPEG with a Display P3 ICC profile (converted to sRGB)',
  });
  const srgbIcc = await raw(q).withIccProfile('srgb').jpeg({ quality: 95 }).toBuffer();
  add({
    cls: 'jpeg',
    file: 'srgb-icc.jpg',
    bytes: srgbIcc,
    outcome: 'ok',
    ...lossy(q),
    passThrough: true,
    note: 'JPEG with an embedded sRGB ICC profile',
  });
  const onePx = makePixels(1, 1, () => [10, 200, 30]);
  add({
    cls: 'jpeg',
    file: 'one-pixel.jpg',
    bytes: await raw(onePx).jpeg({ quality: 100 }).toBuffer(),
    outcome: 'ok',
    width: 1,
    height: 1,
    probes: [{ x: 0, y: 0, rgb: [10, 200, 30], tol: 12 }],
    passThrough: true,
    note: '1x1 JPEG',
  });
  const wide = makePixels(4000, 1, (x) => (x < 2000 ? [250, 250, 250] : [5, 5, 5]));
  add({
    cls: 'jpeg',
    file: 'wide-4000x1.jpg',
    bytes: await raw(wide).jpeg({ quality: 95 }).toBuffer(),
    outcome: 'ok',
    width: 4000,
    height: 1,
    probes: [
      { x: 500, y: 0, rgb: [250, 250, 250], tol: 8 },
      { x: 3500, y: 0, rgb: [5, 5, 5], tol: 8 },
    ],
    passThrough: true,
    note: 'very wide JPEG (4000x1)',
  });
  const tall = makePixels(1, 4000, (_x, y) => (y < 2000 ? [250, 250, 250] : [5, 5, 5]));
  add({
    cls: 'jpeg',
    file: 'tall-1x4000.jpg',
    bytes: await raw(tall).jpeg({ quality: 95 }).toBuffer(),
    outcome: 'ok',
    width: 1,
    height: 4000,
    probes: [
      { x: 0, y: 500, rgb: [250, 250, 250], tol: 8 },
      { x: 0, y: 3500, rgb: [5, 5, 5], tol: 8 },
    ],
    passThrough: true,
    note: 'very tall JPEG (1x4000)',
  });
  add({
    cls: 'jpeg',
    file: 'missing-eoi.jpg',
    bytes: baseline.subarray(0, baseline.length - 2),
    outcome: 'ok',
    ...lossy(q),
    passThrough: false,
    note: 'complete JPEG data without the final EOI marker',
  });
  const extraneous = Buffer.concat([baseline.subarray(0, baseline.length - 2), Buffer.from([0x12, 0x34, 0x56, 0xff, 0xd9])]);
  add({
    cls: 'jpeg',
    file: 'extraneous-bytes.jpg',
    bytes: extraneous,
    outcome: 'ok',
    ...lossy(q),
    passThrough: false,
    note: 'stray bytes before EOI (libjpeg warning "extraneous bytes", harmless); pass-through verifies with a strict decode, so it is re-encoded instead',
  });
  add({
    cls: 'jpeg',
    file: 'png-content.jpg',
    bytes: await raw(q).png().toBuffer(),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'a PNG named .jpg (content decides)',
  });

  // --- PNG -----------------------------------------------------------------
  const palette: RGB[] = [RED, GREEN, BLUE, YELLOW];
  const idx = Array.from({ length: 32 * 32 }, (_, i) => patch(i % 32, Math.floor(i / 32)));
  add({
    cls: 'png',
    file: 'palette.png',
    bytes: craftPng({ width: 32, height: 32, colorType: 3, depth: 2, samples: idx, palette }),
    outcome: 'ok',
    ...exact(rgbPatches),
    passThrough: false,
    note: 'palette PNG (2-bit indices)',
  });
  add({
    cls: 'png',
    file: 'palette-trns.png',
    bytes: craftPng({ width: 32, height: 32, colorType: 3, depth: 8, samples: idx, palette, trns: [0, 128] }),
    outcome: 'ok',
    ...exact(rgbPatches),
    passThrough: false,
    note: 'palette PNG with transparency (tRNS): alpha dropped',
  });
  const v16 = [0, 255, 256, 32767, 32768, 32896, 65279, 65280, 65535];
  const hi = (v: number): number => v >> 8;
  add({
    cls: 'png',
    file: 'grey16.png',
    bytes: craftPng({ width: v16.length, height: 1, colorType: 0, depth: 16, samples: v16 }),
    outcome: 'ok',
    ...exact(makePixels(v16.length, 1, (x) => [hi(v16[x]!), hi(v16[x]!), hi(v16[x]!)])),
    passThrough: false,
    note: '16-bit grey PNG -> high byte (v >> 8)',
  });
  add({
    cls: 'png',
    file: 'rgb16.png',
    bytes: craftPng({ width: v16.length, height: 1, colorType: 2, depth: 16, samples: v16.flatMap((v) => [v, 65535 - v, 1000]) }),
    outcome: 'ok',
    ...exact(makePixels(v16.length, 1, (x) => [hi(v16[x]!), hi(65535 - v16[x]!), 3])),
    passThrough: false,
    note: '16-bit RGB PNG -> high byte (v >> 8)',
  });
  const rgba = [10, 20, 30, 0, 200, 100, 50, 128, 7, 8, 9, 255, 250, 251, 252, 1];
  add({
    cls: 'png',
    file: 'rgba.png',
    bytes: craftPng({ width: 4, height: 1, colorType: 6, depth: 8, samples: rgba }),
    outcome: 'ok',
    ...exact(makePixels(4, 1, (x) => [rgba[x * 4]!, rgba[x * 4 + 1]!, rgba[x * 4 + 2]!])),
    passThrough: false,
    note: 'RGBA PNG: alpha dropped, RGB unchanged (not composited)',
  });
  const ga = [10, 0, 200, 128, 255, 255];
  add({
    cls: 'png',
    file: 'grey-alpha.png',
    bytes: craftPng({ width: 3, height: 1, colorType: 4, depth: 8, samples: ga }),
    outcome: 'ok',
    ...exact(makePixels(3, 1, (x) => [ga[x * 2]!, ga[x * 2]!, ga[x * 2]!])),
    passThrough: false,
    note: 'grey+alpha PNG: alpha dropped, R=G=B',
  });
  const bits = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1];
  add({
    cls: 'png',
    file: 'grey-1bit.png',
    bytes: craftPng({ width: bits.length, height: 1, colorType: 0, depth: 1, samples: bits }),
    outcome: 'ok',
    ...exact(makePixels(bits.length, 1, (x) => (bits[x] ? [255, 255, 255] : [0, 0, 0]))),
    passThrough: false,
    note: '1-bit grey PNG',
  });
  add({
    cls: 'png',
    file: 'one-pixel.png',
    bytes: craftPng({ width: 1, height: 1, colorType: 2, depth: 8, samples: [1, 2, 3] }),
    outcome: 'ok',
    ...exact(makePixels(1, 1, () => [1, 2, 3])),
    passThrough: false,
    note: '1x1 PNG',
  });

  // --- other formats ---------------------------------------------------------
  add({
    cls: 'other',
    file: 'lossless.webp',
    bytes: await raw(q).webp({ lossless: true }).toBuffer(),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'lossless WebP',
  });
  add({
    cls: 'other',
    file: 'lossy.webp',
    bytes: await raw(q).webp({ quality: 95 }).toBuffer(),
    outcome: 'ok',
    ...lossy(q),
    passThrough: false,
    note: 'lossy WebP',
  });
  add({
    cls: 'other',
    file: 'lzw.tiff',
    bytes: await raw(q).tiff({ compression: 'lzw' }).toBuffer(),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'TIFF (LZW)',
  });
  const frame = (c: RGB): Pixels => makePixels(8, 8, () => c);
  const gif = await sharp(Buffer.concat([frame(RED).data, frame(BLUE).data]), { raw: { width: 8, height: 16, channels: 3, pageHeight: 8 } })
    .gif({ delay: [100, 100] })
    .toBuffer();
  add({
    cls: 'other',
    file: 'animated.gif',
    bytes: gif,
    outcome: 'ok',
    width: 8,
    height: 8,
    probes: [{ x: 4, y: 4, rgb: RED, tol: 16 }],
    passThrough: false,
    note: 'animated GIF -> first frame (not listed by ImageFolder: torchvision has no .gif)',
  });
  add({
    cls: 'other',
    file: 'bgr24.bmp',
    bytes: craftBmp(q, { bits: 24 }),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'BMP, 24-bit bottom-up',
  });
  add({
    cls: 'other',
    file: 'bgra32-topdown.bmp',
    bytes: craftBmp(q, { bits: 32, topDown: true }),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'BMP, 32-bit top-down (4th byte dropped)',
  });
  add({
    cls: 'other',
    file: 'palette8.bmp',
    bytes: craftBmp(rgbPatches, { bits: 8, palette, indices: idx }),
    outcome: 'ok',
    ...exact(rgbPatches),
    passThrough: false,
    note: 'BMP, 8-bit palette',
  });
  add({
    cls: 'other',
    file: 'binary.ppm',
    bytes: craftPnm('P6', q.width, q.height, q.data),
    outcome: 'ok',
    ...exact(q),
    passThrough: false,
    note: 'binary PPM (P6)',
  });
  const g8 = Array.from({ length: 16 }, (_, i) => i * 17);
  add({
    cls: 'other',
    file: 'binary.pgm',
    bytes: craftPnm('P5', 16, 1, g8),
    outcome: 'ok',
    ...exact(makePixels(16, 1, (x) => [g8[x]!, g8[x]!, g8[x]!])),
    passThrough: false,
    note: 'binary PGM (P5)',
  });
  add({
    cls: 'other',
    file: 'grey16.pgm',
    bytes: craftPnm('P5', v16.length, 1, v16, 65535),
    outcome: 'ok',
    ...exact(makePixels(v16.length, 1, (x) => [hi(v16[x]!), hi(v16[x]!), hi(v16[x]!)])),
    passThrough: false,
    note: '16-bit PGM (maxval 65535) -> high byte',
  });

  // --- broken: must fail with a message that says why -----------------------
  const TRUNC = /truncated/;
  add({
    cls: 'broken',
    file: 'empty.jpg',
    bytes: new Uint8Array(0),
    outcome: 'error',
    error: /empty \(0 bytes\)/,
    passThrough: false,
    note: 'zero-byte file',
  });
  // A textured image, so that most of each file is scan data; cut halfway through it.
  const noisy = makePixels(256, 192, (x, y) => [(x * 7 + y * 13) & 255, (x * y) & 255, (x ^ y) & 255]);
  const noisyJpeg = await raw(noisy).jpeg({ quality: 90 }).toBuffer();
  const noisyProgressive = await raw(noisy).jpeg({ quality: 90, progressive: true }).toBuffer();
  const midScan = (b: Uint8Array): Uint8Array => b.subarray(0, Math.floor((scanStart(b) + b.length) / 2));
  add({
    cls: 'broken',
    file: 'truncated-scan.jpg',
    bytes: midScan(noisyJpeg),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'JPEG cut in the middle of the scan',
  });
  add({
    cls: 'broken',
    file: 'truncated-progressive.jpg',
    bytes: midScan(noisyProgressive),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'progressive JPEG cut in the middle of its scans',
  });
  const reterminated = Buffer.concat([midScan(noisyJpeg), Buffer.from([0xff, 0xd9])]);
  add({
    cls: 'broken',
    file: 'truncated-then-eoi.jpg',
    bytes: reterminated,
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'JPEG cut mid-scan, then an EOI marker appended (libjpeg would grey-fill); the pass-through probe catches it with a strict decode',
  });
  add({
    cls: 'broken',
    file: 'truncated-header.jpg',
    bytes: baseline.subarray(0, 40),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'JPEG cut inside its header',
  });
  const png = await raw(noisy).png().toBuffer();
  add({
    cls: 'broken',
    file: 'truncated.png',
    bytes: png.subarray(0, Math.floor(png.length * 0.6)),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'PNG cut in the middle of the image data',
  });
  const half = (b: Uint8Array): Uint8Array => b.subarray(0, Math.floor(b.length / 2));
  add({
    cls: 'broken',
    file: 'truncated.webp',
    bytes: half(await raw(noisy).webp({ quality: 90 }).toBuffer()),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'WebP cut in half',
  });
  add({
    cls: 'broken',
    file: 'truncated.tiff',
    bytes: half(await raw(noisy).tiff({ compression: 'lzw' }).toBuffer()),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'TIFF cut in half (its directory is at the end)',
  });
  add({
    cls: 'broken',
    file: 'truncated.gif',
    bytes: half(await raw(noisy).gif().toBuffer()),
    outcome: 'error',
    error: TRUNC,
    passThrough: false,
    note: 'GIF cut in half (not listed by ImageFolder)',
  });
  const crc = Buffer.from(png);
  crc[crc.length - 40]! ^= 0x55; // inside the last IDAT: its CRC no longer matches
  add({
    cls: 'broken',
    file: 'bad-crc.png',
    bytes: crc,
    outcome: 'error',
    error: /PNG data is corrupt/,
    passThrough: false,
    note: 'PNG with a damaged IDAT (CRC mismatch)',
  });
  add({
    cls: 'broken',
    file: 'huge-dimensions.png',
    bytes: craftPngHeader(20000, 20000),
    outcome: 'error',
    error: /too large \(20000x20000 = 400 megapixels; the limit is 268 megapixels\)/,
    passThrough: false,
    note: 'PNG header claiming 20000x20000 (a decompression bomb)',
  });
  add({
    cls: 'broken',
    file: 'text.jpg',
    bytes: Buffer.from('this is a text file, not an image\n'),
    outcome: 'error',
    error: /not an image/,
    passThrough: false,
    note: 'a text file named .jpg',
  });
  add({
    cls: 'broken',
    file: 'html.jpg',
    bytes: Buffer.from('<!DOCTYPE html>\n<html><body>404 Not Found</body></html>\n'),
    outcome: 'error',
    error: /HTML page/,
    passThrough: false,
    note: 'an HTML page saved as .jpg (a failed download)',
  });
  const twelve = craftJpeg({
    width: 16,
    height: 16,
    jfif: true,
    precision: 12,
    components: [
      { id: 1, at: () => 100 },
      { id: 2, at: () => 128 },
      { id: 3, at: () => 128 },
    ],
  });
  add({
    cls: 'broken',
    file: 'twelve-bit.jpg',
    bytes: twelve,
    outcome: 'error',
    error: /12-bit/,
    passThrough: false,
    note: '12-bit JPEG (libjpeg-turbo 8-bit builds cannot decode it)',
  });

  if (opts.only !== 'ok') {
    const dir = join(root, 'broken');
    mkdirSync(dir, { recursive: true });
    const unreadable = join(dir, 'unreadable.jpg');
    writeFileSync(unreadable, baseline);
    chmodSync(unreadable, 0o000);
    // As root (CAP_DAC_OVERRIDE) mode 000 does not stop reads: the file then loads.
    const readable = canReadUnreadable(unreadable);
    if (readable && opts.only === 'error') rmSync(unreadable, { force: true });
    else
      cases.push({
        name: 'unreadable.jpg',
        cls: 'broken',
        path: unreadable,
        listed: true,
        ...(readable ? { outcome: 'ok' as const, ...lossy(q) } : { outcome: 'error' as const, error: /permission denied/ }),
        passThrough: readable,
        note: `chmod 000 file${readable ? ' (readable here: running as root)' : ''}`,
      });
    symlinkSync('self-loop.jpg', join(dir, 'self-loop.jpg'));
    cases.push({
      name: 'self-loop.jpg',
      cls: 'broken',
      path: join(dir, 'self-loop.jpg'),
      listed: true,
      outcome: 'error',
      error: /symbolic link loop/,
      passThrough: false,
      note: 'a symlink to itself named .jpg (ELOOP)',
    });
    symlinkSync('.', join(dir, 'loop'));
    // A named pipe called .jpg: reading it would block forever.
    if (opts.fifo !== false && spawnSync('mkfifo', [join(dir, 'fifo.jpg')]).status === 0) {
      cases.push({
        name: 'fifo.jpg',
        cls: 'broken',
        path: join(dir, 'fifo.jpg'),
        listed: true,
        outcome: 'error',
        error: /named pipe \(FIFO\), not a regular file/,
        passThrough: false,
        note: 'a named pipe (FIFO) named .jpg: must fail, not block',
      });
    }
  }
  return cases;
}

/**
 * Odd source images: every case of test/helpers/odd-images.ts through loadRGB (pixels or
 * a message that names the file, the problem and the fix) and probePassThrough (the
 * file's bytes exactly when storing them unchanged is right), plus the small parsers.
 * All inputs are generated here; nothing is checked in.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { BetonEncodeError } from '../../core/format/errors.js';
import { jpegDecodeRGB, jpegInfo } from '../../core/native/jpeg-codec.js';
import { decodeBmp } from '../../core/images/bmp.js';
import { exifOrientation } from '../../core/images/exif.js';
import { iccDescription } from '../../core/images/icc.js';
import { parseJpegHeader } from '../../core/images/jpeg-header.js';
import { nativeJpegRGB } from '../../core/images/jpeg-source.js';
import { loadRGB } from '../../core/images/load-rgb.js';
import { nodeImageCodec } from '../../core/images/node-image-codec.js';
import { probePassThrough } from '../../core/images/pass-through.js';
import { decodePnm } from '../../core/images/pnm.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { canTestPermissions, cliAsync } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { requires } from '../helpers/requires.js';
import {
  canReadUnreadable,
  craftCmykJpeg,
  exifSegment,
  insertAfterSoi,
  makePixels,
  orient,
  quadrants,
  writeOddImages,
  type OddImageCase,
  type Pixels,
} from '../helpers/odd-images.js';

const root = mkdtempSync(join(tmpdir(), 'beton-odd-'));
const cases = await writeOddImages(root);
// Issue 33 items 4 and 11: no silent skips; what the machine lacks goes through requires().
const HAVE_MKFIFO = requires(
  'mkfifo (coreutils)',
  'the FIFO case needs a named pipe',
  cases.some((c) => c.name === 'fifo.jpg'),
);
const HAVE_PERMISSIONS = requires(
  'a way to test permissions as root',
  'setpriv (util-linux) to read as root without capabilities',
  canTestPermissions(),
);
const byName = (name: string): OddImageCase => cases.find((c) => c.name === name)!;

afterAll(() => {
  for (const c of cases) if (c.name === 'unreadable.jpg') chmodSync(c.path, 0o644);
  rmSync(root, { recursive: true, force: true });
});

function maxDiff(a: Uint8Array, b: Uint8Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

function expectPixels(c: OddImageCase, px: Pixels): void {
  expect([px.width, px.height], 'size').toEqual([c.width, c.height]);
  expect(px.data.length).toBe(px.width * px.height * 3);
  if (c.exact) expect(maxDiff(px.data, c.exact), 'exact pixels').toBe(0);
  for (const p of c.probes ?? []) {
    const i = (p.y * px.width + p.x) * 3;
    const got = [px.data[i]!, px.data[i + 1]!, px.data[i + 2]!];
    const d = Math.max(...got.map((g, k) => Math.abs(g - p.rgb[k]!)));
    expect(d, `pixel (${p.x},${p.y}) is ${got.join(',')}, expected ${p.rgb.join(',')} ±${p.tol}`).toBeLessThanOrEqual(p.tol);
  }
}

async function loadError(input: Parameters<typeof loadRGB>[0]): Promise<BetonEncodeError> {
  try {
    await loadRGB(input);
  } catch (e) {
    expect(e).toBeInstanceOf(BetonEncodeError);
    return e as BetonEncodeError;
  }
  throw new Error('loadRGB did not fail');
}

describe('loadRGB on odd images', () => {
  it('covers the cases the helper promises', () => {
    const names = cases.map((c) => c.name);
    for (const n of [
      'cmyk-adobe.jpg',
      'ycck-adobe.jpg',
      'progressive.jpg',
      'grey.jpg',
      'palette.png',
      'grey16.png',
      'rgb16.png',
      'rgba.png',
      'grey-alpha.png',
      'lossless.webp',
      'lzw.tiff',
      'animated.gif',
      'one-pixel.jpg',
      'wide-4000x1.jpg',
      'tall-1x4000.jpg',
      'empty.jpg',
      'truncated-scan.jpg',
      'truncated.png',
      'text.jpg',
      'unreadable.jpg',
      'self-loop.jpg',
    ]) {
      expect(names).toContain(n);
    }
    for (let o = 1; o <= 8; o++) expect(names).toContain(`exif-orientation-${o}.jpg`);
  });

  describe.each(cases.filter((c) => c.outcome === 'ok'))('$cls/$name loads', (c) => {
    it(`${c.note}`, async () => {
      expectPixels(c, await loadRGB(c.path));
    });
    it('the same from its bytes', async () => {
      expectPixels(c, await loadRGB({ file: readFileSync(c.path), name: c.name }));
    });
  });

  describe.each(cases.filter((c) => c.outcome === 'error'))('$cls/$name fails', (c) => {
    it(`${c.note}`, async () => {
      const e = await loadError(c.path);
      expect(e.code).toBe('BAD_VALUE');
      expect(e.details.source).toBe(c.path);
      // "cannot read image <file>: <what is wrong>; <what to do>"
      expect(e.message.startsWith(`cannot read image ${c.path}: `)).toBe(true);
      expect(e.message).toMatch(c.error!);
      expect(e.message).toMatch(/; .*(remove|convert|restore|fix)/);
      expect(e.message).not.toMatch(/\n|Vips|vipspng|Input buffer/);
    });
  });

  it('relative paths resolve against baseDir and messages show the resolved path', async () => {
    const px = await loadRGB('jpeg/baseline.jpg', root);
    expect([px.width, px.height]).toEqual([48, 32]);
    await expect(loadRGB({ path: 'broken/text.jpg' }, root)).rejects.toThrow(`cannot read image ${join(root, 'broken/text.jpg')}: `);
    await expect(loadRGB(join(root, 'missing.jpg'))).rejects.toThrow(/does not exist/);
    await expect(loadRGB(join(root, 'jpeg'))).rejects.toThrow(/directory/);
  });

  it('bytes without a name are called <bytes> in messages', async () => {
    await expect(loadRGB({ file: new Uint8Array(0) })).rejects.toThrow('cannot read image <bytes>: the file is empty (0 bytes)');
  });

  it('CMYK and YCCK JPEGs of the same inks decode alike (Adobe inversion and YCCK handled)', async () => {
    const a = await loadRGB(byName('cmyk-adobe.jpg').path);
    const b = await loadRGB(byName('ycck-adobe.jpg').path);
    expect(maxDiff(a.data, b.data)).toBeLessThanOrEqual(3);
    // Pure M+Y ink is red: strongly red, not cyan (un-inverted) or dark.
    const [r, g, bl] = a.data.subarray((8 * 32 + 8) * 3);
    expect(r).toBeGreaterThan(200);
    expect(Math.max(g!, bl!)).toBeLessThan(50);
  });

  it('CMYK without Adobe inversion would be wrong: an un-inverted reading of the same file is not red', async () => {
    // Guards the test itself: decoding the CMYK samples without the Adobe convention
    // (255 = no ink) gives near-black for the red patch, so the check above has teeth.
    const raw = await sharp(readFileSync(byName('cmyk-adobe.jpg').path))
      .raw()
      .toColourspace('cmyk')
      .toBuffer();
    const at = (8 * 32 + 8) * 4;
    // libvips undoes Adobe's inversion: ink values come back as 0 C, ~255 M, ~255 Y, 0 K.
    expect([...raw.subarray(at, at + 4)].map((v) => Math.round(v / 255))).toEqual([0, 1, 1, 0]);
  });

  it('EXIF orientation: pixels match the EXIF definition; 5-8 swap width and height', async () => {
    // The helper's orient() follows the EXIF table (where row 0 / column 0 go); check it
    // on a 3x2 image against hand-written results for two orientations.
    const s = makePixels(3, 2, (x, y) => [y * 3 + x, 0, 0]);
    const firstChannel = (p: Pixels): number[] => [...p.data].filter((_, i) => i % 3 === 0);
    expect(orient(s, 6)).toMatchObject({ width: 2, height: 3 });
    expect(firstChannel(orient(s, 6))).toEqual([3, 0, 4, 1, 5, 2]); // rotated 90° clockwise
    expect(firstChannel(orient(s, 8))).toEqual([2, 5, 1, 4, 0, 3]); // rotated 90° counter-clockwise
    expect(firstChannel(orient(s, 2))).toEqual([2, 1, 0, 5, 4, 3]); // mirrored
    for (let o = 1; o <= 8; o++) {
      const px = await loadRGB(byName(`exif-orientation-${o}.jpg`).path);
      expect([px.width, px.height]).toEqual(o >= 5 ? [32, 48] : [48, 32]);
    }
  });

  it('16-bit samples keep their high byte (v >> 8), as libvips and PIL (16-bit RGB) do', async () => {
    const px = await loadRGB(byName('grey16.png').path);
    // 0, 255, 256, 32767, 32768, 32896, 65279, 65280, 65535
    expect([...px.data].filter((_, i) => i % 3 === 0)).toEqual([0, 0, 1, 127, 128, 128, 254, 255, 255]);
  });

  it('alpha is dropped without compositing: fully transparent pixels keep their RGB', async () => {
    const px = await loadRGB(byName('rgba.png').path);
    expect([...px.data.subarray(0, 3)]).toEqual([10, 20, 30]); // alpha 0
  });

  it('an unreadable (chmod 000) file fails with "permission denied"', async () => {
    const c = byName('unreadable.jpg');
    if (!canReadUnreadable(c.path)) {
      const e = await loadError(c.path);
      expect(e.message).toMatch(/permission denied; make it readable/);
      return;
    }
    // Root: mode 000 does not stop root's reads (CAP_DAC_OVERRIDE; the table tests check the
    // file then loads). Issue 33 item 4: the same read as user nobody, through the CLI.
    expect(HAVE_PERMISSIONS, 'requires() reported how to run this').toBe(true);
    const top = mkdtempSync(join(tmpdir(), 'beton-odd-nobody-'));
    try {
      chmodSync(top, 0o755);
      mkdirSync(join(top, 'src', 'a'), { recursive: true });
      mkdirSync(join(top, 'out'));
      chmodSync(join(top, 'out'), 0o777);
      writeFileSync(join(top, 'src', 'a', 'x.jpg'), readFileSync(c.path));
      chmodSync(join(top, 'src', 'a', 'x.jpg'), 0o000);
      const r = await cliAsync(['build', join(top, 'src'), '-o', join(top, 'out', 'x.beton'), '--workers', '1'], {
        asNobody: true,
        env: { HOME: join(top, 'out'), BETON_DB: join(top, 'out', 'runs.sqlite') },
        timeoutMs: 60_000,
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/permission denied; make it readable/);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

  it.runIf(HAVE_MKFIFO)('a FIFO named .jpg fails at once instead of blocking', async () => {
    const fifo = byName('fifo.jpg');
    const t0 = performance.now();
    await expect(loadRGB(fifo.path)).rejects.toThrow(/named pipe/);
    expect(await probePassThrough(fifo.path, undefined, null)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('a JPEG with harmless libjpeg warnings still loads (only damage fails)', async () => {
    // 'extraneous bytes before marker' and a missing EOI after complete data.
    expectPixels(byName('extraneous-bytes.jpg'), await loadRGB(byName('extraneous-bytes.jpg').path));
    expectPixels(byName('missing-eoi.jpg'), await loadRGB(byName('missing-eoi.jpg').path));
  });

  it('a corrupt scan (a marker inside the entropy data) fails instead of grey-filling', async () => {
    const q = quadrants(256, 256);
    const jpg = await sharp(Buffer.from(q.data), { raw: { width: 256, height: 256, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const bad = Buffer.from(jpg);
    const mid = Math.floor(bad.length * 0.7);
    bad[mid] = 0xff;
    bad[mid + 1] = 0xd0 + 3; // an RST marker where none belongs
    const e = await loadError({ file: bad, name: 'corrupt.jpg' });
    expect(e.message).toMatch(/^cannot read image corrupt\.jpg: the (JPEG data is corrupt|file is truncated)/);
  });

  it('BMP: RLE8, 16-bit 5-6-5 bit fields and a 1-bit palette', () => {
    const header = (w: number, h: number, bpp: number, comp: number, colours: number, extra: number[], dataLen: number): Buffer => {
      const off = 54 + extra.length;
      const b = Buffer.alloc(off);
      b.write('BM', 0, 'latin1');
      b.writeUInt32LE(off + dataLen, 2);
      b.writeUInt32LE(off, 10);
      b.writeUInt32LE(40, 14);
      b.writeInt32LE(w, 18);
      b.writeInt32LE(h, 22);
      b.writeUInt16LE(1, 26);
      b.writeUInt16LE(bpp, 28);
      b.writeUInt32LE(comp, 30);
      b.writeUInt32LE(colours, 46);
      Buffer.from(extra).copy(b, 54);
      return b;
    };
    // Palette (BGRX): 0 black, 1 red, 2 green, 3 blue.
    const pal = [0, 0, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0];
    // 4x2, bottom row first: four 2s; top row: absolute run 1,3,1 (padded) then one 2.
    const rle = [4, 2, 0, 0, 0, 3, 1, 3, 1, 0, 1, 2, 0, 0, 0, 1];
    const bmp = Buffer.concat([header(4, 2, 8, 1, 4, pal, rle.length), Buffer.from(rle)]);
    const px = decodeBmp(bmp);
    const R = [255, 0, 0],
      G = [0, 255, 0],
      B = [0, 0, 255];
    expect([...px.data]).toEqual([...R, ...B, ...R, ...G, ...G, ...G, ...G, ...G]);

    const masks = Buffer.alloc(12);
    masks.writeUInt32LE(0xf800, 0);
    masks.writeUInt32LE(0x07e0, 4);
    masks.writeUInt32LE(0x001f, 8);
    const data = Buffer.alloc(4);
    data.writeUInt16LE(0xf800 | 0x001f, 0); // magenta
    data.writeUInt16LE(0x0400, 2); // green 32/63
    const px16 = decodeBmp(Buffer.concat([header(2, 1, 16, 3, 0, [...masks], 4), data]));
    expect([...px16.data]).toEqual([255, 0, 255, 0, 130, 0]);

    const mono = decodeBmp(Buffer.concat([header(3, 1, 1, 0, 2, [0, 0, 0, 0, 255, 255, 255, 0], 4), Buffer.from([0b10100000, 0, 0, 0])]));
    expect([...mono.data]).toEqual([255, 255, 255, 0, 0, 0, 255, 255, 255]);
  });

  it('PNM: ASCII P1/P2/P3, binary P4, maxval scaling, and truncation', async () => {
    const pnm = (s: string): Buffer => Buffer.from(s, 'latin1');
    expect([...decodePnm(pnm('P1\n# c\n3 1\n1 0 1\n')).data]).toEqual([0, 0, 0, 255, 255, 255, 0, 0, 0]);
    expect([...decodePnm(pnm('P1 3 1 101')).data]).toEqual([0, 0, 0, 255, 255, 255, 0, 0, 0]);
    expect([...decodePnm(pnm('P2 2 1 15 0 15')).data]).toEqual([0, 0, 0, 255, 255, 255]);
    expect([...decodePnm(pnm('P3 1 1 1023 1023 512 0')).data]).toEqual([255, 128, 0]);
    expect([
      ...decodePnm(Buffer.concat([pnm('P4\n9 1\n'), Buffer.from([0b10000000, 0b10000000])])).data.filter((_, i) => i % 3 === 0),
    ]).toEqual([0, 255, 255, 255, 255, 255, 255, 255, 0]);
    const e = await loadError({ file: pnm('P6\n4 4\n255\nabc'), name: 'short.ppm' });
    expect(e.message).toMatch(/truncated \(the PPM data ends/);
  });
});

describe("loadRGB: the native JPEG path gives sharp's pixels", () => {
  /** The addon's decode (asserted to be taken) and loadRGB with sharp only. */
  const both = async (input: string | Uint8Array): Promise<[Pixels, Pixels]> => {
    const bytes = typeof input === 'string' ? readFileSync(input) : input;
    const native = nativeJpegRGB(bytes);
    process.env.BETON_SOURCE_DECODER = 'sharp';
    try {
      const viaSharp = await loadRGB(typeof input === 'string' ? input : { file: input });
      expect(nativeJpegRGB(bytes)).toBeNull(); // the switch works
      return [native ?? { data: new Uint8Array(0), width: -1, height: -1 }, viaSharp];
    } finally {
      delete process.env.BETON_SOURCE_DECODER;
    }
  };

  it('takes the native path only for what it decodes like sharp', () => {
    for (const name of ['baseline.jpg', 'progressive.jpg', 'missing-eoi.jpg'])
      expect(nativeJpegRGB(readFileSync(byName(name).path))).not.toBeNull();
    const refused = cases.filter(
      (c) => /\.jpe?g$/i.test(c.path) && /cmyk|ycck|rgb-adobe|exif-orientation-[2-8]|display-p3|extraneous|12-bit|truncated/i.test(c.name),
    );
    expect(refused.length).toBeGreaterThan(5);
    for (const c of refused) {
      let bytes: Uint8Array;
      try {
        bytes = readFileSync(c.path);
      } catch {
        continue;
      }
      expect(nativeJpegRGB(bytes), c.name).toBeNull();
    }
  });

  it('every loadable odd JPEG, and the fixture JPEGs, decode to the same pixels either way', async () => {
    // Those the native path takes (the others are sharp's either way).
    const jpegs = cases.filter((c) => c.outcome === 'ok' && /\.jpe?g$/i.test(c.path) && nativeJpegRGB(readFileSync(c.path)) !== null);
    expect(jpegs.length).toBeGreaterThanOrEqual(8);
    const fixtures = join(FIXTURES, 'src_images');
    const fixtureJpegs = (readdirSync(fixtures, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.jpg'))
      .map((f) => join(fixtures, f));
    expect(fixtureJpegs.length).toBeGreaterThan(10);
    for (const path of [...jpegs.map((c) => c.path), ...fixtureJpegs]) {
      const [a, b] = await both(path);
      expect([a.width, a.height], path).toEqual([b.width, b.height]);
      expect(Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)), path).toBe(0);
    }
  });

  it('baseline and progressive, 4:2:0 / 4:2:2 / 4:4:4, grey, odd sizes and qualities', async () => {
    let n = 0;
    for (const [w, h] of [
      [1, 1],
      [17, 13],
      [333, 251],
      [64, 480],
    ] as const) {
      const px = makePixels(w, h, (x, y) => [(x * 7 + y * 3) & 255, (x * y) & 255, (255 - x * 5) & 255]);
      const img = () => sharp(Buffer.from(px.data), { raw: { width: w, height: h, channels: 3 } });
      for (const chroma of ['4:2:0', '4:4:4'] as const) {
        for (const progressive of [false, true]) {
          for (const quality of [50, 95]) {
            const jpeg = await img().jpeg({ quality, chromaSubsampling: chroma, progressive }).toBuffer();
            const [a, b] = await both(jpeg);
            expect(
              Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)),
              `${w}x${h} ${chroma} progressive=${progressive} q${quality}`,
            ).toBe(0);
            n++;
          }
        }
      }
      const grey = await img().greyscale().jpeg({ quality: 90 }).toBuffer();
      const [a, b] = await both(grey);
      expect(Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)), `${w}x${h} grey`).toBe(0);
      n++;
    }
    expect(n).toBe(36);
  });
});

describe('ImageFolderSource over the odd images', () => {
  it('lists exactly the torchvision-extension files, and symlink loops neither hang nor repeat', () => {
    const t0 = performance.now();
    const src = new ImageFolderSource(root);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(src.classes).toEqual(['broken', 'jpeg', 'other', 'png']);
    const expected = cases
      .filter((c) => c.listed)
      .map((c) => c.path)
      .sort();
    expect(src.items.map((i) => i.path).sort()).toEqual(expected);
    // The directory loop broken/loop -> . adds nothing: no path goes through it.
    expect(src.items.some((i) => i.path.includes('/loop/'))).toBe(false);
  });

  it('a class folder linking to its parent does not hang', () => {
    const r = mkdtempSync(join(tmpdir(), 'beton-odd-loop-'));
    try {
      mkdirSync(join(r, 'a'));
      mkdirSync(join(r, 'b'));
      writeFileSync(join(r, 'a', 'x.jpg'), 'not read here');
      writeFileSync(join(r, 'b', 'y.jpg'), 'not read here');
      symlinkSync('..', join(r, 'a', 'up'));
      symlinkSync('.', join(r, 'b', 'self'));
      const t0 = performance.now();
      const src = new ImageFolderSource(r);
      expect(performance.now() - t0).toBeLessThan(5000);
      // Each real directory is walked once per class; every listed path exists.
      const paths = src.items.map((i) => i.path);
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths).toContain(join(r, 'a', 'x.jpg'));
      expect(paths).toContain(join(r, 'b', 'y.jpg'));
    } finally {
      rmSync(r, { recursive: true, force: true });
    }
  });
});

describe('probePassThrough', () => {
  it.each(cases)('$cls/$name: pass-through $passThrough', async (c) => {
    const got = await probePassThrough(c.path, undefined, null);
    expect(got !== null, c.note).toBe(c.passThrough);
    if (!got) return;
    const file = readFileSync(c.path);
    expect(Buffer.from(got.bytes).equals(file), 'byte-identical').toBe(true);
    // FFCV's decode (libjpeg-turbo, fast IDCT) gives the same size as loadRGB, and close pixels.
    const dec = jpegDecodeRGB(got.bytes, undefined, { fastDct: true });
    expect([dec.width, dec.height]).toEqual([got.width, got.height]);
    if (c.outcome === 'ok') {
      const px = await loadRGB(c.path);
      expect([px.width, px.height]).toEqual([got.width, got.height]);
      expect(maxDiff(dec.data, px.data)).toBeLessThanOrEqual(12);
    }
  });

  it("file bytes: the same verdict, and the caller's array back", async () => {
    for (const c of cases) {
      if (c.name === 'unreadable.jpg' || c.name === 'self-loop.jpg' || c.name === 'fifo.jpg') continue;
      const file = new Uint8Array(readFileSync(c.path));
      const got = await probePassThrough({ file, name: c.name }, undefined, null);
      expect(got !== null, c.name).toBe(c.passThrough);
      if (got) expect(got.bytes).toBe(file);
    }
  });

  it('eligible baseline, progressive and grey JPEGs; a relative path with baseDir', async () => {
    for (const [name, progressive, colorSpace] of [
      ['baseline.jpg', false, 'YCbCr'],
      ['progressive.jpg', true, 'YCbCr'],
      ['grey.jpg', false, 'Grayscale'],
    ] as const) {
      const got = await probePassThrough(`jpeg/${name}`, root, null);
      expect(got, name).not.toBeNull();
      expect(jpegInfo(got!.bytes)).toMatchObject({ progressive, colorSpace });
    }
  });

  it('maxResolution: null when a resize is needed', async () => {
    const p = byName('baseline.jpg').path; // 48x32
    expect(await probePassThrough(p, undefined, 47)).toBeNull();
    expect(await probePassThrough(p, undefined, 48)).toMatchObject({ width: 48, height: 32 });
    expect(await probePassThrough(byName('wide-4000x1.jpg').path, undefined, 256)).toBeNull();
  });

  it('pixels, missing files and non-JPEGs give null, never an error', async () => {
    expect(await probePassThrough(quadrants(), undefined, null)).toBeNull();
    expect(await probePassThrough(join(root, 'nope.jpg'), undefined, null)).toBeNull();
    expect(await probePassThrough(join(root, 'jpeg'), undefined, null)).toBeNull();
    expect(await probePassThrough({ file: new Uint8Array(0) }, undefined, null)).toBeNull();
  });

  it('headers longer than the first read (big APP segments) are still parsed', async () => {
    const base = readFileSync(byName('baseline.jpg').path);
    const app15 = (n: number): Buffer => Buffer.concat([Buffer.from([0xff, 0xef, (n + 2) >> 8, (n + 2) & 255]), Buffer.alloc(n, 0x20)]);
    const big = insertAfterSoi(base, app15(65000), app15(65000), app15(65000));
    const p = join(root, 'big-header.jpg');
    writeFileSync(p, big);
    expect(await probePassThrough(p, undefined, null)).toMatchObject({ width: 48, height: 32 });
    writeFileSync(p, insertAfterSoi(base, app15(65000), app15(65000), app15(65000), exifSegment(6)));
    expect(await probePassThrough(p, undefined, null)).toBeNull();
    rmSync(p);
  });

  it('files larger than the first read: whole bytes back; a cut one (no EOI) is refused', async () => {
    const noise = makePixels(700, 700, (x, y) => [(x * 31 + y * 17) & 255, (x * y * 7) & 255, (x ^ (y * 3)) & 255]);
    const jpg = await sharp(Buffer.from(noise.data), { raw: { width: 700, height: 700, channels: 3 } })
      .jpeg({ quality: 98 })
      .toBuffer();
    expect(jpg.length).toBeGreaterThan(256 * 1024);
    const p = join(root, 'large.jpg');
    writeFileSync(p, jpg);
    const got = await probePassThrough(p, undefined, 700);
    expect(got && Buffer.from(got.bytes).equals(jpg)).toBe(true);
    writeFileSync(p, jpg.subarray(0, jpg.length - 1000));
    expect(await probePassThrough(p, undefined, null)).toBeNull();
    rmSync(p);
  });

  it('CMYK/YCCK and RGB JPEGs are refused by colour space, 12-bit by precision', async () => {
    const cmyk = craftCmykJpeg(16, 16, () => [0, 0, 0, 0], 'cmyk');
    expect(await probePassThrough({ file: cmyk }, undefined, null)).toBeNull();
    expect(parseJpegHeader(readFileSync(byName('twelve-bit.jpg').path))).toMatchObject({ precision: 12 });
    expect(parseJpegHeader(readFileSync(byName('rgb-adobe.jpg').path))).toMatchObject({ components: 3 });
    expect(jpegInfo(readFileSync(byName('rgb-adobe.jpg').path)).colorSpace).toBe('RGB');
  });

  it("is the codec's probePassThrough", () => {
    expect(nodeImageCodec().probePassThrough).toBe(probePassThrough);
  });
});

describe('header parsers', () => {
  it('exifOrientation: both byte orders, absent tag, LONG type, malformed data', () => {
    const tiffOf = (seg: Uint8Array): Uint8Array => seg.subarray(10); // FFE1 len "Exif\0\0"
    for (let o = 1; o <= 8; o++) {
      expect(exifOrientation(tiffOf(exifSegment(o, 'II')))).toBe(o);
      expect(exifOrientation(tiffOf(exifSegment(o, 'MM')))).toBe(o);
    }
    const noTag = Buffer.from(tiffOf(exifSegment(6, 'II')));
    noTag.writeUInt16LE(0x0110, 10); // Model instead of Orientation
    expect(exifOrientation(noTag)).toBe(1);
    const long = Buffer.from(tiffOf(exifSegment(0, 'MM')));
    long.writeUInt16BE(4, 12);
    long.writeUInt32BE(3, 18); // value field of the one entry (IFD at 8: count, tag, type, count, value)
    expect(exifOrientation(long)).toBe(3);
    expect(exifOrientation(Buffer.from('XX*\0\0\0\0\0'))).toBeNull();
    expect(exifOrientation(Buffer.alloc(4))).toBeNull();
    const cut = tiffOf(exifSegment(6, 'II')).subarray(0, 14);
    expect(exifOrientation(cut)).toBeNull();
  });

  it('parseJpegHeader: size, orientation, short and malformed headers', () => {
    const base = readFileSync(byName('baseline.jpg').path);
    expect(parseJpegHeader(base)).toMatchObject({
      sof: 0xc0,
      precision: 8,
      width: 48,
      height: 32,
      components: 3,
      orientations: [],
      icc: null,
      mpf: false,
    });
    expect(parseJpegHeader(readFileSync(byName('progressive.jpg').path))).toMatchObject({ sof: 0xc2 });
    expect(parseJpegHeader(readFileSync(byName('exif-orientation-6.jpg').path))).toMatchObject({ orientations: [6] });
    expect(parseJpegHeader(base.subarray(0, 30))).toBe('short');
    expect(parseJpegHeader(readFileSync(byName('palette.png').path))).toBeNull();
    expect(parseJpegHeader(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeNull();
  });

  it("iccDescription: sharp's sRGB and Display P3 profiles", async () => {
    const srgb = parseJpegHeader(readFileSync(byName('srgb-icc.jpg').path));
    const p3 = parseJpegHeader(readFileSync(byName('display-p3.jpg').path));
    if (srgb === null || srgb === 'short' || p3 === null || p3 === 'short') throw new Error('unparsed');
    expect(iccDescription(srgb.icc!)).toMatch(/sRGB/);
    expect(iccDescription(p3.icc!)).toMatch(/P3/);
    expect(iccDescription(new Uint8Array(10))).toBeNull();
  });
});

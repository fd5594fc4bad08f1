// The loader's JPEG decode path: libturbojpeg from the @julusian/jpeg-turbo
// npm package, loaded at run time by the beton_turbo addon (core/native/turbo.ts).
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { Worker } from 'node:worker_threads';

import sharp, { type Sharp } from 'sharp';
import { describe, expect, it, vi } from 'vitest';

import { type CropRect, cropResizeRGB, resizeAreaRGB } from '../../core/native/area-resize.js';
import { NativeError, type NativeErrorCode } from '../../core/native/native-error.js';
import { jpegDecodeRGB, jpegEncodeRGB } from '../../core/native/jpeg-codec.js';
import { type TurboAddon, loadTurboAddon, turboAddonPath } from '../../core/native/turbo-addon.js';
import {
  TURBOJPEG_PACKAGE,
  chooseScale,
  decodeCropResize,
  decodeFull,
  decodePath,
  describeDecodePath,
  findTurboJpegLibrary,
  turboHeader,
  turboStatus,
} from '../../core/native/turbo.js';
import { decodeCropResizeSharp, decodeFullSharp } from '../../core/native/sharp-decode.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { mulberry32 as rng } from '../helpers/mulberry32.js';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function constantImage(width: number, height: number, rgb: readonly number[]): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(rgb, i * 3);
  return data;
}

/** A smooth colour image (photo-like: no hard edges). */
function gradientImage(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = Math.round(127.5 + 127.5 * Math.sin(x / 37 + y / 91));
      data[i + 1] = Math.round((255 * (x + y)) / (width + height));
      data[i + 2] = Math.round(127.5 + 100 * Math.cos(Math.hypot(x - width / 3, y - height / 2) / 23));
    }
  }
  return data;
}

/** Copies a crop out of packed RGB. */
function cropCopy(rgb: Uint8Array, width: number, crop: CropRect): Uint8Array {
  const out = new Uint8Array(crop.w * crop.h * 3);
  for (let r = 0; r < crop.h; r++) {
    const start = ((crop.y + r) * width + crop.x) * 3;
    out.set(rgb.subarray(start, start + crop.w * 3), r * crop.w * 3);
  }
  return out;
}

/** FFCV's crop decoders: full decode (fast IDCT), crop, cv2.resize(INTER_AREA). */
function reference(jpeg: Uint8Array, crop: CropRect, outW: number, outH: number): Uint8Array {
  const full = jpegDecodeRGB(jpeg, undefined, { fastDct: true });
  return resizeAreaRGB(cropCopy(full.data, full.width, crop), crop.w, crop.h, outW, outH);
}

function meanAbsDiff(a: Uint8Array, b: Uint8Array): { mean: number; max: number } {
  expect(a.length).toBe(b.length);
  let sum = 0;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    if (d > max) max = d;
  }
  return { mean: sum / a.length, max };
}

function isConstant(data: Uint8Array, rgb: ArrayLike<number>): boolean {
  for (let i = 0; i < data.length; i++) if (data[i] !== rgb[i % 3]) return false;
  return true;
}

/** A torchvision-style random-resized-crop rectangle (scale 0.08-1, ratio 3/4-4/3). */
function randomResizedCrop(width: number, height: number, random: () => number): CropRect {
  for (let attempt = 0; attempt < 10; attempt++) {
    const area = width * height * (0.08 + random() * 0.92);
    const ratio = Math.exp(Math.log(3 / 4) + random() * (Math.log(4 / 3) - Math.log(3 / 4)));
    const w = Math.round(Math.sqrt(area * ratio));
    const h = Math.round(Math.sqrt(area / ratio));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      return { x: Math.floor(random() * (width - w + 1)), y: Math.floor(random() * (height - h + 1)), w, h };
    }
  }
  return { x: 0, y: 0, w: width, h: height };
}

function expectNativeError(fn: () => unknown, code: NativeErrorCode): NativeError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(NativeError);
  expect((caught as NativeError).code).toBe(code);
  return caught as NativeError;
}

/** The stored JPEG bytes of each sample of a golden fixture, via the allocation table. */
function fixtureJpegs(name: string): { bytes: Uint8Array; width: number; height: number; sha256: string }[] {
  interface Sample {
    image: { mode: string; width: number; height: number; sha256: string; stored_size: number; stored_sha256: string };
  }
  const manifest = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as { samples: Sample[] };
  const file = new Uint8Array(readFileSync(join(FIXTURES, `${name}.beton`)));
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  // Header: u64 at offset 16 = allocation table offset; the table runs to
  // EOF as (sample_id u64, ptr u64, size u64) entries.
  const tableStart = Number(view.getBigUint64(16, true));
  const entries: { sample: number; ptr: number; size: number }[] = [];
  for (let offset = tableStart; offset + 24 <= file.length; offset += 24) {
    entries.push({
      sample: Number(view.getBigUint64(offset, true)),
      ptr: Number(view.getBigUint64(offset + 8, true)),
      size: Number(view.getBigUint64(offset + 16, true)),
    });
  }
  return manifest.samples.map(({ image }, index) => {
    expect(image.mode).toBe('jpg');
    for (const e of entries) {
      if (e.sample !== index || e.size !== image.stored_size) continue;
      const bytes = file.subarray(e.ptr, e.ptr + e.size);
      if (sha256(bytes) === image.stored_sha256) {
        return { bytes, width: image.width, height: image.height, sha256: image.sha256 };
      }
    }
    throw new Error(`${name}: no allocation holds sample ${index}'s image`);
  });
}

// ---------------------------------------------------------------------------

describe('library loading', () => {
  it('uses the libturbojpeg shipped in the npm tarball, not a system library', () => {
    const status = turboStatus();
    expect(status.path, describeDecodePath()).toBe('turbojpeg-npm');
    expect(decodePath()).toBe('turbojpeg-npm');
    if (status.path !== 'turbojpeg-npm') return;

    const require = createRequire(import.meta.url);
    const packageDir = realpathSync(dirname(require.resolve(`${TURBOJPEG_PACKAGE}/package.json`)));
    const { libPath } = findTurboJpegLibrary();
    // The symbols came from the package's file (dladdr), not another copy.
    expect(realpathSync(status.library.path)).toBe(realpathSync(libPath));
    expect(realpathSync(status.library.path).startsWith(packageDir + sep)).toBe(true);
    expect(status.packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(status.library.version).toMatch(/^3\.\d+\.\d+$/);
    expect(status.library.api).toBe(3);
    expect(status.library.scalingFactors).toEqual(['1/8', '1/4', '3/8', '1/2', '5/8', '3/4', '7/8', '1/1']);
    expect(describeDecodePath()).toContain(`libjpeg-turbo ${status.library.version}`);
    expect(turboAddonPath()).toMatch(/beton_turbo\.node$/);
  });

  it('loading again (as every worker thread does) is harmless', () => {
    const addon = loadTurboAddon();
    const first = addon.turboLoaded();
    expect(first).not.toBeNull();
    expect(addon.turboLoad(findTurboJpegLibrary().libPath)).toEqual(first);
  });

  it('the addon exports exactly the members TurboAddon declares', () => {
    // TurboAddon (core/native/turbo-addon.ts) is the one declaration of the addon's exports:
    // the record fails to compile when a member is added or removed, the comparison when the
    // C++ (native/src/turbo_addon.cc) exports another set.
    const declared: Record<keyof TurboAddon, true> = {
      cropResizeRGB: true,
      turboChooseScale: true,
      turboDecodeCropResize: true,
      turboDecodeFull: true,
      turboHeader: true,
      turboLoad: true,
      turboLoaded: true,
      turboUseApi: true,
    };
    expect(Object.keys(loadTurboAddon()).sort()).toEqual(Object.keys(declared).sort());
  });

  it('reports the sharp fallback, with the reason, when libjpeg-turbo is disabled', async () => {
    const saved = process.env['BETON_TURBOJPEG_LIB'];
    process.env['BETON_TURBOJPEG_LIB'] = 'off';
    try {
      vi.resetModules();
      const fresh = await import('../../core/native/turbo.js');
      expect(fresh.decodePath()).toBe('sharp');
      expect(fresh.describeDecodePath()).toMatch(/^sharp fallback .*BETON_TURBOJPEG_LIB=off/);
      const jpeg = jpegEncodeRGB(constantImage(32, 32, [9, 9, 9]), 32, 32, 95);
      expect(() => fresh.decodeCropResize(jpeg, new Uint8Array(48), { x: 0, y: 0, w: 32, h: 32 }, 4, 4)).toThrow(
        /libjpeg-turbo is not available/,
      );
    } finally {
      if (saved === undefined) delete process.env['BETON_TURBOJPEG_LIB'];
      else process.env['BETON_TURBOJPEG_LIB'] = saved;
      vi.resetModules();
    }
  });
});

describe('constant colours (FFCV tests rely on constant images decoding exactly at q95)', () => {
  // A 128x128 image and output sizes that make decodeCropResize pick each
  // scaling factor in turn (crop = whole image, out = 128 * s).
  const size = 128;
  const scales = [1 / 8, 1 / 4, 1 / 2, 1];

  it('every grey level decodes exactly at every DCT scale, fast and accurate IDCT, with crops', () => {
    const failures: string[] = [];
    for (let level = 0; level < 256; level++) {
      const grey = [level, level, level];
      const jpeg = jpegEncodeRGB(constantImage(size, size, grey), size, size, 95);
      for (const fastDct of [true, false]) {
        for (const s of scales) {
          const out = size * s;
          const dst = new Uint8Array(out * out * 3);
          const used = decodeCropResize(jpeg, dst, { x: 0, y: 0, w: size, h: size }, out, out, { fastDct });
          expect(used).toBe(s);
          if (!isConstant(dst, grey)) failures.push(`grey ${level} s=${s} fastDct=${fastDct}`);
        }
        // An unaligned crop, shrunk to a non-integer ratio, and one enlarged.
        const small = new Uint8Array(20 * 20 * 3);
        decodeCropResize(jpeg, small, { x: 37, y: 21, w: 83, h: 101 }, 20, 20, { fastDct });
        if (!isConstant(small, grey)) failures.push(`grey ${level} crop fastDct=${fastDct}`);
        const big = new Uint8Array(50 * 40 * 3);
        decodeCropResize(jpeg, big, { x: 5, y: 99, w: 17, h: 29 }, 50, 40, { fastDct });
        if (!isConstant(big, grey)) failures.push(`grey ${level} enlarged fastDct=${fastDct}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('colours decode to the full decode constant at every scale (YCbCr may move them by 1)', () => {
    for (const colour of [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [12, 200, 90],
      [128, 64, 192],
    ]) {
      const jpeg = jpegEncodeRGB(constantImage(size, size, colour), size, size, 95);
      const full = decodeFull(jpeg).data;
      const value = full.subarray(0, 3);
      expect(isConstant(full, value)).toBe(true);
      for (let c = 0; c < 3; c++) expect(Math.abs(value[c]! - colour[c]!)).toBeLessThanOrEqual(1);
      for (const s of scales) {
        const out = size * s;
        const dst = new Uint8Array(out * out * 3);
        decodeCropResize(jpeg, dst, { x: 0, y: 0, w: size, h: size }, out, out);
        expect(isConstant(dst, value), `${colour.join(',')} at s=${s}`).toBe(true);
      }
    }
  });

  it('at q90 the fast IDCT at full scale is off by one for some grey levels (why FFCV uses q95)', () => {
    const off: number[] = [];
    for (let level = 0; level < 256; level += 1) {
      const jpeg = jpegEncodeRGB(constantImage(32, 32, [level, level, level]), 32, 32, 90);
      const pixels = decodeFull(jpeg, undefined, { fastDct: true }).data;
      const diff = Math.abs(pixels[0]! - level);
      expect(diff).toBeLessThanOrEqual(1);
      expect(isConstant(pixels, pixels.subarray(0, 3))).toBe(true);
      if (diff !== 0) off.push(level);
    }
    // Observed with libjpeg-turbo 3.1: every third level or so (DC quantiser 3).
    expect(off.length).toBeGreaterThan(0);
  });
});

describe('decodeCropResize on a photo-like image', () => {
  const width = 640;
  const height = 480;
  const jpeg = jpegEncodeRGB(gradientImage(width, height), width, height, 90);

  it('without DCT scaling equals full decode + crop + INTER_AREA exactly', () => {
    const random = rng(7);
    for (let i = 0; i < 60; i++) {
      const crop = randomResizedCrop(width, height, random);
      const [outW, outH] = i % 3 === 0 ? [224, 224] : i % 3 === 1 ? [160, 160] : [97, 61];
      const dst = new Uint8Array(outW * outH * 3);
      expect(decodeCropResize(jpeg, dst, crop, outW, outH, { scaling: false })).toBe(1);
      const expected = outW <= crop.w && outH <= crop.h ? reference(jpeg, crop, outW, outH) : undefined;
      if (expected !== undefined) {
        expect(Buffer.from(dst).equals(Buffer.from(expected)), JSON.stringify(crop)).toBe(true);
      }
      // Same through the raw-image path on the full decode.
      const full = jpegDecodeRGB(jpeg, undefined, { fastDct: true });
      const viaRaw = cropResizeRGB(full.data, width, height, crop, outW, outH);
      expect(Buffer.from(dst).equals(Buffer.from(viaRaw)), JSON.stringify(crop)).toBe(true);
    }
  });

  it('with DCT scaling stays close to the full-scale reference', () => {
    const random = rng(11);
    let worstMean = 0;
    const used = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const crop = randomResizedCrop(width, height, random);
      const out = 160;
      if (crop.w < out || crop.h < out) continue;
      const dst = new Uint8Array(out * out * 3);
      const s = decodeCropResize(jpeg, dst, crop, out, out);
      used.add(s);
      expect(s).toBe(chooseScale(crop.w, crop.h, out, out));
      const { mean } = meanAbsDiff(dst, reference(jpeg, crop, out, out));
      worstMean = Math.max(worstMean, mean);
    }
    expect(used.size).toBeGreaterThanOrEqual(2);
    // Measured: about 0.5 level (DCT-domain downscaling; the crop's
    // fractional edges at the reduced scale are area-weighted, not rounded).
    expect(worstMean).toBeLessThan(1);
  });

  it('decodes only what it needs: the result does not depend on pixels outside the crop', () => {
    // Same crop from two JPEGs that differ only far outside it.
    const a = gradientImage(width, height);
    const b = a.slice();
    for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) b.fill(0, (y * width + x) * 3, (y * width + x) * 3 + 3);
    const crop = { x: 320, y: 240, w: 300, h: 200 };
    const outA = new Uint8Array(150 * 100 * 3);
    const outB = new Uint8Array(150 * 100 * 3);
    decodeCropResize(jpegEncodeRGB(a, width, height, 90), outA, crop, 150, 100);
    decodeCropResize(jpegEncodeRGB(b, width, height, 90), outB, crop, 150, 100);
    expect(Buffer.from(outA).equals(Buffer.from(outB))).toBe(true);
  });
});

describe('other JPEG flavours (sharp-encoded)', () => {
  const width = 333;
  const height = 251;
  const flavours: [string, (img: Sharp) => Sharp][] = [
    ['4:4:4', (img) => img.jpeg({ quality: 90, chromaSubsampling: '4:4:4' })],
    ['4:2:0 progressive', (img) => img.jpeg({ quality: 90, progressive: true })],
    ['greyscale', (img) => img.greyscale().jpeg({ quality: 90 })],
  ];

  it.each(flavours)('%s: crops decode exactly at full scale and closely when scaled', async (_name, encode) => {
    const raw = sharp(gradientImage(width, height), { raw: { width, height, channels: 3 } });
    const jpeg = new Uint8Array(await encode(raw).toBuffer());
    const random = rng(17);
    for (let i = 0; i < 12; i++) {
      const crop = randomResizedCrop(width, height, random);
      const [outW, outH] = i % 2 === 0 ? [Math.ceil(crop.w / 2), Math.ceil(crop.h / 3)] : [40, 30];
      const dst = new Uint8Array(outW * outH * 3);
      decodeCropResize(jpeg, dst, crop, outW, outH, { scaling: false });
      const expected = reference(jpeg, crop, outW, outH);
      expect(Buffer.from(dst).equals(Buffer.from(expected)), JSON.stringify(crop)).toBe(true);
      decodeCropResize(jpeg, dst, crop, outW, outH);
      expect(meanAbsDiff(dst, expected).mean).toBeLessThan(1.5);
    }
  });
});

describe('scaling factor choice', () => {
  it('picks the smallest s in {1/8, 1/4, 1/2, 1} with crop*s >= output on both axes', () => {
    expect(chooseScale(1000, 800, 160, 160)).toBe(1 / 4); // 1/8 gives 125x100
    expect(chooseScale(640, 480, 160, 160)).toBe(1 / 2); // 1/4 gives 160x120 (3/8 is never used)
    expect(chooseScale(320, 320, 160, 160)).toBe(1 / 2);
    expect(chooseScale(1280, 1280, 160, 160)).toBe(1 / 8);
    expect(chooseScale(2000, 1500, 224, 224)).toBe(1 / 4);
    expect(chooseScale(300, 300, 160, 160)).toBe(1); // 1/2 gives 150 (no 5/8..7/8: slow C IDCTs)
    expect(chooseScale(161, 500, 160, 160)).toBe(1);
    expect(chooseScale(100, 100, 160, 160)).toBe(1); // enlargement: full scale
  });

  it('decodeCropResize uses that factor on a real JPEG', () => {
    const jpeg = jpegEncodeRGB(gradientImage(1024, 1024), 1024, 1024, 90);
    const dst = new Uint8Array(160 * 160 * 3);
    expect(decodeCropResize(jpeg, dst, { x: 13, y: 200, w: 1000, h: 800 }, 160, 160)).toBe(1 / 4);
    expect(decodeCropResize(jpeg, dst, { x: 0, y: 0, w: 1024, h: 1024 }, 160, 160)).toBe(1 / 4);
    expect(decodeCropResize(jpeg, dst, { x: 0, y: 0, w: 1024, h: 1024 }, 128, 128)).toBe(1 / 8);
    expect(decodeCropResize(jpeg, dst, { x: 1, y: 1, w: 1023, h: 1023 }, 128, 128)).toBe(1 / 4); // 1023/8 < 128
    expect(decodeCropResize(jpeg, dst, { x: 500, y: 500, w: 100, h: 100 }, 160, 160)).toBe(1);
  });
});

describe('errors', () => {
  const jpeg = jpegEncodeRGB(gradientImage(64, 48), 64, 48, 90);
  const dst = new Uint8Array(64 * 48 * 3);
  const whole = { x: 0, y: 0, w: 64, h: 48 };

  it('rejects data that is not a JPEG with NATIVE_JPEG, without crashing', () => {
    const random = rng(3);
    const garbage = Uint8Array.from({ length: 5000 }, () => Math.floor(random() * 256));
    expectNativeError(() => decodeCropResize(garbage, dst, whole, 32, 24), 'NATIVE_JPEG');
    expectNativeError(() => decodeFull(garbage, dst), 'NATIVE_JPEG');
    expectNativeError(() => turboHeader(garbage), 'NATIVE_JPEG');
    expectNativeError(() => decodeFull(new Uint8Array(0), dst), 'NATIVE_JPEG');
    // A JPEG whose entropy-coded data is garbage (a copy: Buffer#slice is a view).
    const scrambled = new Uint8Array(jpeg);
    for (let i = 700; i < scrambled.length - 2; i++) scrambled[i] = Math.floor(random() * 256);
    try {
      decodeCropResize(scrambled, dst, whole, 32, 24);
    } catch (error) {
      expect(error).toBeInstanceOf(NativeError);
    }
    // The thread's decompressor still works afterwards.
    expect(decodeCropResize(jpeg, dst, whole, 32, 24)).toBe(1 / 2);
  });

  it('a header that fails after the frame header does not break the next decode', () => {
    // TurboJPEG leaves libjpeg mid-header after such a failure; the addon
    // replaces the thread's decompressor, else the next image fails too.
    const bad = new Uint8Array(jpeg);
    let dht = 2;
    while (!(bad[dht] === 0xff && bad[dht + 1] === 0xc4)) dht++;
    bad[dht + 4] = 0x35; // DHT table index 5: "Bogus DHT index"
    expectNativeError(() => decodeCropResize(bad, dst, whole, 32, 24), 'NATIVE_JPEG');
    expectNativeError(() => turboHeader(bad), 'NATIVE_JPEG');
    expect(decodeCropResize(jpeg, dst, whole, 32, 24)).toBe(1 / 2);
    expect(turboHeader(jpeg).width).toBe(64);
  });

  it('a tables-only datastream has no image (and no stale header)', () => {
    expect(turboHeader(jpeg).width).toBe(64);
    // SOI, then a fill byte run and EOI: a datastream without a frame.
    expectNativeError(() => turboHeader(new Uint8Array([0xff, 0xd8, 0xff, 0xd9])), 'NATIVE_JPEG');
    // Extraneous bytes (a warning) followed by "no image" (fatal) is still an error.
    expectNativeError(() => decodeFull(new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]), dst), 'NATIVE_JPEG');
  });

  it('decodes truncated JPEGs grey-filled like FFCV, or throws with strict', () => {
    const big = jpegEncodeRGB(gradientImage(256, 192), 256, 192, 90);
    const truncated = big.subarray(0, Math.floor(big.length * 0.6));
    const decoded = decodeFull(truncated);
    expect(decoded.warnings).toBeGreaterThan(0);
    // The missing bottom is filled with grey (128), as libjpeg does.
    expect(decoded.data[decoded.data.length - 1]).toBe(128);
    const all = { x: 0, y: 0, w: 256, h: 192 };
    expect(() => decodeCropResize(truncated, dst, all, 32, 24)).not.toThrow();
    expectNativeError(() => decodeCropResize(truncated, dst, all, 32, 24, { strict: true }), 'NATIVE_JPEG_WARNING');
    // A crop above the damage never reads it: no warning even with strict.
    expect(() => decodeCropResize(truncated, dst, { x: 0, y: 0, w: 64, h: 48 }, 32, 24, { strict: true })).not.toThrow();
    expectNativeError(() => decodeFull(truncated, undefined, { strict: true }), 'NATIVE_JPEG_WARNING');
  });

  it('checks crops and buffers', () => {
    expectNativeError(() => decodeCropResize(jpeg, dst, { x: 10, y: 0, w: 64, h: 48 }, 8, 8), 'NATIVE_ARGUMENT');
    expectNativeError(() => decodeCropResize(jpeg, dst, { x: 0, y: 0, w: 0, h: 48 }, 8, 8), 'NATIVE_ARGUMENT');
    expectNativeError(() => decodeCropResize(jpeg, dst, { x: 0.5, y: 0, w: 8, h: 8 }, 8, 8), 'NATIVE_ARGUMENT');
    expectNativeError(() => decodeCropResize(jpeg, new Uint8Array(10), whole, 8, 8), 'NATIVE_BUFFER_SIZE');
    expectNativeError(() => decodeFull(jpeg, new Uint8Array(100)), 'NATIVE_BUFFER_SIZE');
    expectNativeError(() => cropResizeRGB(dst, 64, 48, { x: 60, y: 0, w: 5, h: 5 }, 2, 2), 'NATIVE_ARGUMENT');
    expectNativeError(() => cropResizeRGB(dst, 64, 48, whole, 8, 8, new Uint8Array(5)), 'NATIVE_BUFFER_SIZE');
  });
});

describe('golden fixture images_jpg.beton', () => {
  const samples = fixtureJpegs('images_jpg');

  it('decodeFull (fast IDCT) gives FFCV pixels, identical to the libjpeg decoder', () => {
    for (const [index, sample] of samples.entries()) {
      const turbo = decodeFull(sample.bytes, undefined, { fastDct: true });
      expect([turbo.width, turbo.height]).toEqual([sample.width, sample.height]);
      expect(sha256(turbo.data), `sample ${index}`).toBe(sample.sha256);
      const libjpeg = jpegDecodeRGB(sample.bytes, undefined, { fastDct: true });
      expect(Buffer.from(turbo.data).equals(Buffer.from(libjpeg.data))).toBe(true);
      // Accurate IDCT agrees with libjpeg's too.
      const accurate = decodeFull(sample.bytes, undefined, { fastDct: false }).data;
      expect(Buffer.from(accurate).equals(Buffer.from(jpegDecodeRGB(sample.bytes, undefined, { fastDct: false }).data))).toBe(true);
      expect(turboHeader(sample.bytes)).toMatchObject({ width: sample.width, height: sample.height });
    }
  });

  it('decodeCropResize at full scale equals FFCV decode + crop + INTER_AREA', () => {
    const random = rng(5);
    for (const sample of samples) {
      // Whole image at its own size: s = 1 and a straight decode.
      const same = new Uint8Array(sample.width * sample.height * 3);
      decodeCropResize(sample.bytes, same, { x: 0, y: 0, w: sample.width, h: sample.height }, sample.width, sample.height);
      expect(sha256(same)).toBe(sample.sha256);
      for (let k = 0; k < 4; k++) {
        const crop = randomResizedCrop(sample.width, sample.height, random);
        const outW = Math.max(1, Math.floor(crop.w * 0.7));
        const outH = Math.max(1, Math.floor(crop.h * 0.6));
        const dst = new Uint8Array(outW * outH * 3);
        decodeCropResize(sample.bytes, dst, crop, outW, outH, { scaling: false });
        expect(Buffer.from(dst).equals(Buffer.from(reference(sample.bytes, crop, outW, outH)))).toBe(true);
      }
    }
  });
});

describe('cropResizeRGB (raw-stored samples)', () => {
  it('shrinking equals resizeAreaRGB on the copied crop (bit-exact INTER_AREA)', () => {
    const width = 300;
    const height = 200;
    const random = rng(9);
    const image = Uint8Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256));
    const cases: [CropRect, number, number][] = [
      [{ x: 0, y: 0, w: 300, h: 200 }, 150, 100], // integer 2x: fast path
      [{ x: 10, y: 7, w: 120, h: 90 }, 40, 30], // integer 3x
      [{ x: 33, y: 41, w: 211, h: 117 }, 64, 50], // fractional
      [{ x: 299, y: 199, w: 1, h: 1 }, 1, 1],
      [{ x: 5, y: 5, w: 80, h: 80 }, 80, 80], // copy
    ];
    for (let i = 0; i < 30; i++) {
      const crop = randomResizedCrop(width, height, random);
      cases.push([crop, 1 + Math.floor(random() * crop.w), 1 + Math.floor(random() * crop.h)]);
    }
    for (const [crop, outW, outH] of cases) {
      const expected = resizeAreaRGB(cropCopy(image, width, crop), crop.w, crop.h, outW, outH);
      const actual = cropResizeRGB(image, width, height, crop, outW, outH);
      expect(Buffer.from(actual).equals(Buffer.from(expected)), JSON.stringify([crop, outW, outH])).toBe(true);
    }
  });

  it('enlarging keeps constants exact and replicates pixels for integer factors', () => {
    const image = constantImage(40, 30, [200, 17, 93]);
    const sizes: [number, number][] = [
      [97, 61],
      [40, 300],
      [7, 90],
      [400, 5],
    ];
    for (const [outW, outH] of sizes) {
      expect(isConstant(cropResizeRGB(image, 40, 30, { x: 3, y: 4, w: 20, h: 10 }, outW, outH), [200, 17, 93])).toBe(true);
    }
    // INTER_AREA enlarging by an integer factor is pixel replication.
    const random = rng(21);
    const small = Uint8Array.from({ length: 6 * 5 * 3 }, () => Math.floor(random() * 256));
    const big = cropResizeRGB(small, 6, 5, { x: 0, y: 0, w: 6, h: 5 }, 18, 10);
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 18; x++) {
        const s = (Math.floor(y / 2) * 6 + Math.floor(x / 3)) * 3;
        expect(Array.from(big.subarray((y * 18 + x) * 3, (y * 18 + x) * 3 + 3))).toEqual(Array.from(small.subarray(s, s + 3)));
      }
    }
    // Non-integer enlargement blends neighbours: values stay within the source range.
    const ramp = new Uint8Array(4 * 1 * 3);
    ramp.set([0, 0, 0, 100, 100, 100, 200, 200, 200, 250, 250, 250]);
    const stretched = cropResizeRGB(ramp, 4, 1, { x: 0, y: 0, w: 4, h: 1 }, 10, 1);
    const reds = Array.from({ length: 10 }, (_, i) => stretched[i * 3]!);
    expect(reds[0]).toBe(0);
    expect(reds[9]).toBe(250);
    for (let i = 1; i < 10; i++) expect(reds[i]!).toBeGreaterThanOrEqual(reds[i - 1]!);
  });
});

describe('worker threads', () => {
  it('each thread loads the library and decodes with its own handle', async () => {
    const width = 320;
    const height = 240;
    const jpeg = jpegEncodeRGB(gradientImage(width, height), width, height, 90);
    const crop = { x: 17, y: 9, w: 250, h: 201 };
    const expected = new Uint8Array(112 * 112 * 3);
    decodeCropResize(jpeg, expected, crop, 112, 112);
    // Plain JS workers load the raw addon directly (as core/native/turbo.ts
    // would in a worker) and decode concurrently.
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const addon = require(workerData.addonPath);
      addon.turboLoad(workerData.libPath);
      const dst = new Uint8Array(112 * 112 * 3);
      const c = workerData.crop;
      let scale = 0;
      for (let i = 0; i < 200; i++) {
        scale = addon.turboDecodeCropResize(workerData.jpeg, dst, c.x, c.y, c.w, c.h, 112, 112, true, true, false);
      }
      parentPort.postMessage({ dst, scale });
    `;
    const run = (): Promise<{ dst: Uint8Array; scale: number }> =>
      new Promise((resolve, reject) => {
        const worker = new Worker(code, {
          eval: true,
          workerData: { addonPath: turboAddonPath(), libPath: findTurboJpegLibrary().libPath, jpeg, crop },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    const results = await Promise.all([run(), run(), run()]);
    for (const result of results) {
      expect(result.scale).toBe(chooseScale(crop.w, crop.h, 112, 112));
      expect(Buffer.from(result.dst).equals(Buffer.from(expected))).toBe(true);
    }
  });
});

describe('sharp fallback', () => {
  it('decodeCropResizeSharp is close to the reference and exact on constants', async () => {
    const width = 320;
    const height = 240;
    const jpeg = jpegEncodeRGB(gradientImage(width, height), width, height, 90);
    const crop = { x: 40, y: 30, w: 200, h: 150 };
    const dst = new Uint8Array(100 * 75 * 3);
    await decodeCropResizeSharp(jpeg, dst, crop, 100, 75);
    expect(meanAbsDiff(dst, reference(jpeg, crop, 100, 75)).mean).toBeLessThan(3);

    for (const level of [0, 77, 128, 255]) {
      const grey = jpegEncodeRGB(constantImage(96, 64, [level, level, level]), 96, 64, 95);
      const out = new Uint8Array(30 * 20 * 3);
      await decodeCropResizeSharp(grey, out, { x: 5, y: 3, w: 80, h: 50 }, 30, 20);
      expect(isConstant(out, [level, level, level])).toBe(true);
    }
    const full = await decodeFullSharp(jpeg);
    expect([full.width, full.height, full.data.length]).toEqual([width, height, width * height * 3]);
    await expect(decodeCropResizeSharp(new Uint8Array(100), dst, crop, 100, 75)).rejects.toThrow(NativeError);
  });
});

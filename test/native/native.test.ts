import { createHash } from 'node:crypto';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { NativeError, type NativeErrorCode } from '../../core/native/native-error.js';
import { type NativeAddon, loadNative, native } from '../../core/native/beton-addon.js';
import { jpegDecodeRGB, jpegEncodeRGB, jpegInfo } from '../../core/native/jpeg-codec.js';
import { madvise, mmapFile, pageCacheResidentFraction } from '../../core/native/mmap.js';
import { resizeAreaRGB } from '../../core/native/area-resize.js';

// ---------------------------------------------------------------------------
// Fixture access. The reader is not used on purpose: these tests must pin the
// addon down independently, so stored sample bytes are located straight from
// the allocation table.
// ---------------------------------------------------------------------------

interface ImageSample {
  mode: 'jpg' | 'raw';
  width: number;
  height: number;
  sha256: string;
  stored_size: number;
  stored_sha256: string;
}

interface ImageInput {
  source: string;
  resized: boolean;
  source_width: number;
  source_height: number;
  source_rgb_sha256: string;
  encoded_rgb_sha256: string;
}

interface ImageManifest {
  writer: { fields: { name: string; jpeg_quality?: number; max_resolution?: number | null }[] };
  samples: { image: ImageSample }[];
  inputs: ImageInput[];
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

interface ImageFixture {
  manifest: ImageManifest;
  /** The stored bytes (JPEG or raw RGB) of each sample's image field. */
  stored: Uint8Array[];
}

function loadImageFixture(name: string): ImageFixture {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as ImageManifest;
  const file = new Uint8Array(readFileSync(join(FIXTURES, `${name}.beton`)));
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  // Header: alloc_table_ptr <u8 at offset 16; the table runs to EOF as
  // (sample_id, ptr, size) <u8 triples.
  const tableStart = Number(view.getBigUint64(16, true));
  const allocations: { sample: number; ptr: number; size: number }[] = [];
  for (let offset = tableStart; offset + 24 <= file.length; offset += 24) {
    allocations.push({
      sample: Number(view.getBigUint64(offset, true)),
      ptr: Number(view.getBigUint64(offset + 8, true)),
      size: Number(view.getBigUint64(offset + 16, true)),
    });
  }
  const stored = manifest.samples.map(({ image }, index) => {
    for (const a of allocations) {
      if (a.sample !== index || a.size !== image.stored_size) continue;
      const bytes = file.subarray(a.ptr, a.ptr + a.size);
      if (sha256(bytes) === image.stored_sha256) return bytes;
    }
    throw new Error(`${name}: no allocation holds sample ${index}'s image`);
  });
  return { manifest, stored };
}

interface RGB {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * The pixels FFCV's ImageFolder fed the writer: PIL's RGB conversion. PNGs are
 * lossless; JPEG sources were decoded by PIL with libjpeg-turbo's ISLOW IDCT,
 * which is our fastDct = false.
 */
async function sourcePixels(relativePath: string): Promise<RGB> {
  const path = join(FIXTURES, 'src_images', relativePath);
  if (path.endsWith('.jpg')) {
    const decoded = jpegDecodeRGB(new Uint8Array(readFileSync(path)), undefined, { fastDct: false });
    return { data: decoded.data, width: decoded.width, height: decoded.height };
  }
  const { data, info } = await sharp(path).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(3);
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Runs `fn`, which must throw a NativeError with `code`, and returns the error. */
function expectNativeError(fn: () => unknown, code: NativeErrorCode): NativeError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(NativeError);
  const error = caught as NativeError;
  expect(error.name).toBe('NativeError');
  expect(error.code).toBe(code);
  return error;
}

function fieldQuality(manifest: ImageManifest): number {
  const quality = manifest.writer.fields.find((f) => f.name === 'image')?.jpeg_quality;
  if (quality === undefined) throw new Error('manifest has no jpeg_quality');
  return quality;
}

// ---------------------------------------------------------------------------

describe('loader', () => {
  it('loads the addon, which exports exactly the members NativeAddon declares', () => {
    // NativeAddon (core/native/beton-addon.ts) is the one declaration of the addon's exports:
    // this record fails to compile when a member is added to or removed from it, and the
    // comparison fails when the C++ (native/src/addon.cc) exports another set.
    const declared: Record<keyof NativeAddon, true> = {
      gatherPlanCreate: true,
      gatherPlanOrder: true,
      gatherPlanRun: true,
      gatherRecords: true,
      jpegCheck: true,
      jpegDecodeRGB: true,
      jpegEncodeRGB: true,
      jpegInfo: true,
      jpegLibrary: true,
      madvise: true,
      mapPixels: true,
      mmapFile: true,
      pageCacheResidency: true,
      pcg64ShuffleU32: true,
      resizeAreaRGB: true,
      threadCpuMs: true,
      transcodeJpeg: true,
    };
    expect(Object.keys(loadNative()).sort()).toEqual(Object.keys(declared).sort());
    expect(native.jpegLibrary).toMatch(/^libjpeg/);
  });
});

describe('mmapFile', () => {
  it('maps a fixture byte-for-byte', () => {
    const path = join(FIXTURES, 'images_jpg.beton');
    const mapped = mmapFile(path);
    const expected = readFileSync(path);
    expect(mapped.byteLength).toBe(expected.length);
    expect(Buffer.from(mapped).equals(expected)).toBe(true);
    expect(madvise(mapped, 0, mapped.byteLength, 'random')).toBe(true);
    expect(madvise(mapped, 1000, 5000, 'willneed')).toBe(true);
  });

  it('returns an empty buffer for an empty file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'beton-native-'));
    try {
      const path = join(dir, 'empty.bin');
      writeFileSync(path, '');
      const mapped = mmapFile(path);
      expect(mapped.byteLength).toBe(0);
      expect(madvise(mapped, 0, 0, 'willneed')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('maps a window (offset, length) clipped to the end; past 4 GiB only windows, the whole file refused by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'beton-native-'));
    try {
      const path = join(dir, 'big.bin');
      // A sparse 5 GiB file with marks at 0, 2^32 + 4096 and its last byte.
      const fd = openSync(path, 'w');
      writeSync(fd, Buffer.from('head'), 0, 4, 0);
      writeSync(fd, Buffer.from('past4g'), 0, 6, 2 ** 32 + 4096);
      ftruncateSync(fd, 5 * 2 ** 30);
      writeSync(fd, Buffer.from('Z'), 0, 1, 5 * 2 ** 30 - 1);
      closeSync(fd);
      expect(Buffer.from(mmapFile(path, 0, 4)).toString()).toBe('head');
      expect(
        Buffer.from(mmapFile(path, 2 ** 32, 8192))
          .subarray(4096, 4102)
          .toString(),
      ).toBe('past4g');
      const tail = mmapFile(path, 5 * 2 ** 30 - 4096, 2 ** 30);
      expect(tail.byteLength).toBe(4096); // clipped to the end of the file
      expect(new Uint8Array(tail)[4095]).toBe('Z'.charCodeAt(0));
      expect(mmapFile(path, 5 * 2 ** 30, 10).byteLength).toBe(0);
      const whole = expectNativeError(() => mmapFile(path), 'NATIVE_IO');
      expect(whole.message).toMatch(
        /cannot map '.*big\.bin' whole: 5368709120 bytes is more than one ArrayBuffer holds \(4 GiB\); map it in windows/,
      );
      expect(() => mmapFile(path, 100, 10)).toThrow(/offset must be a multiple of the system page size/);
      expect(() => mmapFile(path, 6 * 2 ** 30, 10)).toThrow(/past the end/);
      expect(() => mmapFile(path, 0, 2 ** 32 + 1)).toThrow(/length must be an integer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports missing files and directories as NativeError NATIVE_IO', () => {
    expectNativeError(() => mmapFile(join(FIXTURES, 'does-not-exist.beton')), 'NATIVE_IO');
    expectNativeError(() => mmapFile(FIXTURES), 'NATIVE_IO');
  });

  it('tells page-cache residency by mincore: a file just read is resident; errors are NATIVE_IO', () => {
    const path = join(FIXTURES, 'images_jpg.beton');
    readFileSync(path);
    expect(pageCacheResidentFraction(path)).toBeGreaterThan(0.99);
    const dir = mkdtempSync(join(tmpdir(), 'beton-native-'));
    try {
      writeFileSync(join(dir, 'empty.bin'), '');
      expect(pageCacheResidentFraction(join(dir, 'empty.bin'))).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expectNativeError(() => pageCacheResidentFraction(join(FIXTURES, 'does-not-exist.beton')), 'NATIVE_IO');
    expectNativeError(() => pageCacheResidentFraction(FIXTURES), 'NATIVE_IO');
  });

  it('ignores advice on buffers it did not map', () => {
    expect(madvise(new ArrayBuffer(64), 0, 64, 'sequential')).toBe(false);
    expect(() => madvise(new ArrayBuffer(64), 60, 8, 'sequential')).toThrow(NativeError);
  });
});

describe('jpegDecodeRGB', () => {
  it('reproduces FFCV (TurboJPEG TJFLAG_FASTDCT) pixels exactly for every JPEG sample', () => {
    let jpegSamples = 0;
    for (const name of ['images_jpg', 'images_smart', 'images_proportion']) {
      const { manifest, stored } = loadImageFixture(name);
      manifest.samples.forEach(({ image }, index) => {
        if (image.mode !== 'jpg') return;
        jpegSamples++;
        const bytes = stored[index]!;
        const info = jpegInfo(bytes);
        expect(info).toMatchObject({ width: image.width, height: image.height, progressive: false });
        const dst = new Uint8Array(image.width * image.height * 3 + 7); // slack must be harmless
        const decoded = jpegDecodeRGB(bytes, dst, { fastDct: true });
        expect(decoded).toMatchObject({ width: image.width, height: image.height, warnings: 0 });
        expect(decoded.data.buffer).toBe(dst.buffer);
        expect(sha256(decoded.data), `${name} sample ${index}`).toBe(image.sha256);
      });
    }
    expect(jpegSamples).toBe(40 + 23 + 14);
  });

  it('allocates the output when no dst is given', () => {
    const { manifest, stored } = loadImageFixture('images_jpg');
    const decoded = jpegDecodeRGB(stored[0]!);
    expect(decoded.data.length).toBe(decoded.width * decoded.height * 3);
    expect(sha256(decoded.data)).toBe(manifest.samples[0]!.image.sha256);
  });

  it('reports header information', () => {
    const { stored } = loadImageFixture('images_jpg');
    expect(jpegInfo(stored[1]!)).toEqual({
      width: 8,
      height: 8,
      components: 3,
      colorSpace: 'YCbCr',
      progressive: false,
    });
  });

  it('throws NativeError (never crashes) on corrupt or truncated input', () => {
    const { stored } = loadImageFixture('images_jpg');
    const jpeg = stored.reduce((a, b) => (b.length > a.length ? b : a));
    const dst = new Uint8Array(4 << 20);
    expectNativeError(() => jpegDecodeRGB(new Uint8Array(0), dst), 'NATIVE_JPEG');
    expectNativeError(() => jpegDecodeRGB(new Uint8Array(1000).fill(0x42), dst), 'NATIVE_JPEG');
    expectNativeError(() => jpegDecodeRGB(jpeg.subarray(0, 100), dst), 'NATIVE_JPEG');
    expectNativeError(() => jpegInfo(jpeg.subarray(0, 2)), 'NATIVE_JPEG');
    expect(() => jpegDecodeRGB(jpeg.subarray(0, 100), dst)).toThrow(/invalid JPEG: /);

    // Cut inside the entropy-coded data: libjpeg (like FFCV's TurboJPEG)
    // recovers with grey; strict mode turns that into an error.
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    const recovered = jpegDecodeRGB(truncated, dst);
    expect(recovered.warnings).toBeGreaterThan(0);
    expect(recovered.warning).toMatch(/premature end/i);
    expectNativeError(() => jpegDecodeRGB(truncated, dst, { strict: true }), 'NATIVE_JPEG_WARNING');

    // Random corruption of every kind must surface as JS errors or warnings.
    let seed = 12345;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    for (let trial = 0; trial < 300; trial++) {
      const mutated = Uint8Array.from(jpeg);
      for (let k = 0; k < 4; k++) mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
      try {
        jpegDecodeRGB(mutated, dst, { fastDct: trial % 2 === 0 });
      } catch (error) {
        expect(error).toBeInstanceOf(NativeError);
      }
    }
  });

  it('refuses a dst that is too small before writing to it', () => {
    const { stored } = loadImageFixture('images_jpg');
    const dst = new Uint8Array(10).fill(7);
    expectNativeError(() => jpegDecodeRGB(stored[0]!, dst), 'NATIVE_BUFFER_SIZE');
    expect([...dst]).toEqual(new Array<number>(10).fill(7));
  });

  it('keeps argument errors on the JS side', () => {
    expectNativeError(() => jpegDecodeRGB('not bytes' as unknown as Uint8Array), 'NATIVE_ARGUMENT');
    // The raw addon re-checks arguments itself.
    const notBytes = new Uint16Array(4) as unknown as Uint8Array;
    expect(() => native.jpegDecodeRGB(new Uint8Array(4), notBytes, true)).toThrow(TypeError);
  });
});

describe('jpegEncodeRGB', () => {
  it('round-trips a uniform grey image exactly at quality 90', () => {
    const [width, height] = [17, 31];
    for (let grey = 0; grey < 256; grey++) {
      const rgb = new Uint8Array(width * height * 3).fill(grey);
      const jpeg = jpegEncodeRGB(rgb, width, height, 90);
      if (grey === 0) {
        expect(jpegInfo(jpeg)).toMatchObject({ width, height, components: 3, colorSpace: 'YCbCr' });
      }
      // The accurate IDCT restores every grey level exactly.
      const accurate = jpegDecodeRGB(jpeg, undefined, { fastDct: false }).data;
      expect(Buffer.from(accurate).equals(Buffer.from(rgb)), `grey ${grey}`).toBe(true);
      // The fast IDCT (FFCV's) truncates instead of rounding: with q90's DC
      // step of 3 it lands one level low for a third of the levels.
      const fast = jpegDecodeRGB(jpeg, undefined, { fastDct: true }).data;
      const expected = grey % 3 === 1 ? grey - 1 : grey;
      expect(
        fast.every((v) => v === expected),
        `grey ${grey}`,
      ).toBe(true);
    }
  });

  it('writes the same bytes as FFCV (OpenCV 4.6 imencode) for every JPEG sample', async () => {
    const sources = new Map<string, RGB>();
    let compared = 0;
    for (const name of ['images_jpg', 'images_proportion', 'images_smart']) {
      const { manifest, stored } = loadImageFixture(name);
      const quality = fieldQuality(manifest);
      for (const [index, { image }] of manifest.samples.entries()) {
        if (image.mode !== 'jpg') continue;
        const input = manifest.inputs[index]!;
        let source = sources.get(input.source);
        if (source === undefined) {
          source = await sourcePixels(input.source);
          expect(sha256(source.data), input.source).toBe(input.source_rgb_sha256);
          sources.set(input.source, source);
        }
        const pixels = input.resized ? resizeAreaRGB(source.data, source.width, source.height, image.width, image.height) : source.data;
        expect(sha256(pixels)).toBe(input.encoded_rgb_sha256);
        const jpeg = jpegEncodeRGB(pixels, image.width, image.height, quality);
        expect(jpeg.length, `${name} sample ${index}`).toBe(image.stored_size);
        expect(sha256(jpeg), `${name} sample ${index}`).toBe(image.stored_sha256);
        expect(Buffer.from(jpeg).equals(Buffer.from(stored[index]!))).toBe(true);
        compared++;
      }
    }
    expect(compared).toBe(40 + 14 + 23);
  });

  it('validates its arguments', () => {
    const rgb = new Uint8Array(12);
    expectNativeError(() => jpegEncodeRGB(rgb, 0, 1), 'NATIVE_ARGUMENT');
    expectNativeError(() => jpegEncodeRGB(rgb, 2, 2, 101), 'NATIVE_ARGUMENT');
    expectNativeError(() => jpegEncodeRGB(rgb, 2.5, 2), 'NATIVE_ARGUMENT');
    expectNativeError(() => jpegEncodeRGB(rgb, 3, 3), 'NATIVE_BUFFER_SIZE');
    // The raw addon re-checks sizes itself (a plain Error carrying the code).
    expect(() => native.jpegEncodeRGB(rgb, 3, 3, 90)).toThrow(/needs 27/);
  });
});

describe('resizeAreaRGB', () => {
  it('matches FFCV (cv2.resize INTER_AREA) for every resized sample', async () => {
    const { manifest, stored } = loadImageFixture('images_smart');
    expect(manifest.writer.fields[0]?.max_resolution).toBe(128);
    let resized = 0;
    let rawChecked = 0;
    for (const [index, input] of manifest.inputs.entries()) {
      if (!input.resized) continue;
      const { image } = manifest.samples[index]!;
      const source = await sourcePixels(input.source);
      expect(sha256(source.data)).toBe(input.source_rgb_sha256);
      // FFCV: new size = trunc((max_resolution / max(w, h)) * (w, h)) in float64.
      const ratio = 128 / Math.max(source.width, source.height);
      expect([image.width, image.height]).toEqual([Math.trunc(ratio * source.width), Math.trunc(ratio * source.height)]);
      const pixels = resizeAreaRGB(source.data, source.width, source.height, image.width, image.height);
      expect(sha256(pixels), `sample ${index} ${input.source}`).toBe(input.encoded_rgb_sha256);
      if (image.mode === 'raw') {
        expect(Buffer.from(pixels).equals(Buffer.from(stored[index]!))).toBe(true);
        rawChecked++;
      }
      resized++;
    }
    expect(resized).toBe(23);
    expect(rawChecked).toBe(2);
  });

  it('averages whole blocks for integer factors, rounding like OpenCV', () => {
    // Expected values come from cv2.resize in OpenCV 4.6.
    // 2x2 blocks use (sum + 2) >> 2, so a mean of 0.5 rounds up...
    const square = new Uint8Array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    expect([...resizeAreaRGB(square, 2, 2, 1, 1)]).toEqual([1, 1, 1]);
    // ...while other integer factors use cvRound(sum * (1 / area)): half to even.
    const column = new Uint8Array([0, 1, 3, 1, 2, 4]);
    expect([...resizeAreaRGB(column, 1, 2, 1, 1)]).toEqual([0, 2, 4]);
    // Same size is a copy.
    expect([...resizeAreaRGB(column, 1, 2, 1, 2)]).toEqual([...column]);
  });

  it('only shrinks and checks buffer sizes', () => {
    const src = new Uint8Array(4 * 4 * 3);
    expectNativeError(() => resizeAreaRGB(src, 4, 4, 5, 4), 'NATIVE_ARGUMENT');
    expectNativeError(() => resizeAreaRGB(src, 5, 4, 2, 2), 'NATIVE_BUFFER_SIZE');
    expectNativeError(() => resizeAreaRGB(src, 4, 4, 2, 2, new Uint8Array(11)), 'NATIVE_BUFFER_SIZE');
  });
});

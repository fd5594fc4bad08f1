// The TurboJPEG 2 fallback of the beton_turbo addon (for a libturbojpeg 2.x,
// which has no cropping region), exercised with the npm package's 3.x
// library, which still exports the TurboJPEG 2 API. The API switch is
// process-wide, hence a file of its own (vitest runs files in separate
// processes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type CropRect } from '../../core/native/area-resize.js';
import { jpegDecodeRGB, jpegEncodeRGB } from '../../core/native/jpeg-codec.js';
import { loadTurboAddon } from '../../core/native/turbo-addon.js';
import { decodeCropResize, decodeFull, turboHeader, turboStatus } from '../../core/native/turbo.js';

function image(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = (x * 7 + y) & 255;
      data[i + 1] = Math.round(127.5 + 127.5 * Math.sin(x / 19 + y / 31));
      data[i + 2] = (x * y) & 255;
    }
  }
  return data;
}

describe('TurboJPEG 2 code path', () => {
  const width = 400;
  const height = 300;
  const jpeg = jpegEncodeRGB(image(width, height), width, height, 90);
  const crops: [CropRect, number, number][] = [
    [{ x: 0, y: 0, w: 400, h: 300 }, 100, 75],
    [{ x: 33, y: 17, w: 301, h: 250 }, 160, 160],
    [{ x: 100, y: 90, w: 150, h: 120 }, 64, 48],
    [{ x: 5, y: 5, w: 40, h: 30 }, 80, 60],
  ];
  const fromApi3: Uint8Array[] = [];

  beforeAll(() => {
    expect(turboStatus().path).toBe('turbojpeg-npm');
    for (const [crop, outW, outH] of crops) {
      const dst = new Uint8Array(outW * outH * 3);
      decodeCropResize(jpeg, dst, crop, outW, outH);
      fromApi3.push(dst);
    }
    expect(loadTurboAddon().turboUseApi(2)).toBe(true);
    expect(loadTurboAddon().turboLoaded()?.api).toBe(2);
  });

  afterAll(() => {
    loadTurboAddon().turboUseApi(3);
  });

  it('decodes whole images like libjpeg (fast and accurate IDCT)', () => {
    for (const fastDct of [true, false]) {
      const turbo = decodeFull(jpeg, undefined, { fastDct });
      expect(Buffer.from(turbo.data).equals(Buffer.from(jpegDecodeRGB(jpeg, undefined, { fastDct }).data))).toBe(true);
    }
    expect(turboHeader(jpeg)).toEqual({ width, height, subsamp: 2, colorSpace: 'YCbCr' });
  });

  it('crop + scale + resize gives the same pixels as the TurboJPEG 3 cropping-region path', () => {
    for (const [index, [crop, outW, outH]] of crops.entries()) {
      const dst = new Uint8Array(outW * outH * 3);
      decodeCropResize(jpeg, dst, crop, outW, outH);
      expect(Buffer.from(dst).equals(Buffer.from(fromApi3[index]!)), JSON.stringify(crop)).toBe(true);
    }
  });

  it('reports corrupt data', () => {
    expect(() => decodeFull(new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]))).toThrow(/invalid JPEG/);
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
    expect(decodeFull(truncated).warnings).toBeGreaterThan(0);
    expect(() => decodeFull(truncated, undefined, { strict: true })).toThrow(/corrupt JPEG/);
  });
});

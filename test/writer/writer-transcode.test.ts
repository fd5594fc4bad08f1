/**
 * The writer's one-call image path (native transcodeJpeg via the codec's transcode): the
 * same bytes as the step-by-step path (decode → INTER_AREA → JPEG encode), null for
 * everything it must leave to sharp, and whole files identical with it on and off
 * (BETON_SOURCE_DECODER=sharp), for every write mode and worker count; and the damage
 * check (jpegCheck) that keeps sharp's verdicts on odd JPEGs stable under several workers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeImageCodec } from '../../core/images/node-image-codec.js';
import { transcodeSource } from '../../core/images/transcode-source.js';
import { hasTranscodeJpeg, jpegCheck, threadCpuMs, transcodeJpeg } from '../../core/native/writer-transcode.js';
import { craftCmykJpeg } from '../helpers/odd-images.js';
import { describeTranscodeMatrix, noise } from '../helpers/transcode-matrix.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-transcode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('transcodeJpeg', () => {
  it('is available in this build', () => {
    expect(hasTranscodeJpeg()).toBe(true);
    expect(threadCpuMs()).toBeGreaterThan(0);
  });

  it('adds decode/resize/encode CPU time to a stages array', async () => {
    const src = await sharp(Buffer.from(noise(400, 300)), { raw: { width: 400, height: 300, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const stages = new Float64Array(3);
    for (let i = 0; i < 20; i++) transcodeJpeg(src, 400, 300, 256, 192, 90, stages);
    expect(stages[0]).toBeGreaterThan(0);
    expect(stages[0]! + stages[1]! + stages[2]!).toBeLessThan(10_000);
  });

  it('returns null for what it must leave to sharp', async () => {
    const px = noise(64, 48);
    const good = await sharp(Buffer.from(px), { raw: { width: 64, height: 48, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    expect(transcodeJpeg(good, 64, 48, 32, 24, 90)).not.toBeNull();
    // A size other than the one parsed from the header.
    expect(transcodeJpeg(good, 63, 48, 32, 24, 90)).toBeNull();
    // CMYK (sharp converts it with its profile).
    const cmyk = craftCmykJpeg(16, 16, () => [0, 128, 255, 0], 'cmyk');
    expect(transcodeJpeg(cmyk, 16, 16, 8, 8, 90)).toBeNull();
    // Cut short: libjpeg warns and fills grey; never stored from here.
    expect(transcodeJpeg(good.subarray(0, good.length >> 1), 64, 48, 32, 24, 90)).toBeNull();
    // Not a JPEG at all.
    const png = await sharp(Buffer.from(px), { raw: { width: 64, height: 48, channels: 3 } })
      .png()
      .toBuffer();
    expect(transcodeJpeg(png, 64, 48, 32, 24, 90)).toBeNull();
    // Sizes it cannot take (the addon would throw) are refused before the call.
    expect(transcodeJpeg(good, 64, 48, 65, 24, 90)).toBeNull();
    expect(transcodeJpeg(good, 64, 48, 0, 24, 90)).toBeNull();
  });
});

describe('jpegCheck', () => {
  it("reports libjpeg's warnings and errors for a whole file", async () => {
    const good = await sharp(Buffer.from(noise(64, 48)), { raw: { width: 64, height: 48, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    expect(jpegCheck(good)).toEqual({ warnings: 0, warning: '', error: '' });
    const cut = jpegCheck(good.subarray(0, good.length >> 1))!;
    expect(cut.error).toBe('');
    expect(cut.warnings).toBeGreaterThan(0);
    expect(cut.warning).toMatch(/premature end/i);
    // CMYK reads as CMYK (no conversion asked), cleanly.
    expect(jpegCheck(craftCmykJpeg(16, 16, () => [0, 128, 255, 0], 'cmyk'))).toEqual({ warnings: 0, warning: '', error: '' });
    expect(jpegCheck(good.subarray(0, 40))!.error).not.toBe('');
    expect(jpegCheck(new Uint8Array([1, 2, 3]))!.error).toMatch(/Not a JPEG/i);
  });
});

describe('transcodeSource', () => {
  it('hands the bytes it read to the general path when the file does not qualify', async () => {
    const png = await sharp(Buffer.from(noise(8, 8)), { raw: { width: 8, height: 8, channels: 3 } })
      .png()
      .toBuffer();
    const path = join(dir, 'x.png');
    writeFileSync(path, png);
    const r = transcodeSource(path, undefined, () => ({ width: 4, height: 4, jpegQuality: 90 }));
    expect(
      'fallback' in r && typeof r.fallback === 'object' && 'file' in r.fallback ? Buffer.compare(Buffer.from(r.fallback.file), png) : -1,
    ).toBe(0);
    // A missing file is left to load(), which reports it by name.
    const missing = join(dir, 'missing.jpg');
    expect(transcodeSource(missing, undefined, () => null)).toEqual({ fallback: missing });
    await expect(nodeImageCodec().load(missing)).rejects.toThrow(/missing\.jpg.*does not exist/);
  });

  it('is off with BETON_SOURCE_DECODER=sharp', async () => {
    const jpg = await sharp(Buffer.from(noise(8, 8)), { raw: { width: 8, height: 8, channels: 3 } })
      .jpeg()
      .toBuffer();
    const input = { file: jpg, name: 'a.jpg' };
    process.env.BETON_SOURCE_DECODER = 'sharp';
    try {
      expect(transcodeSource(input, undefined, () => ({ width: 4, height: 4, jpegQuality: 90 }))).toEqual({ fallback: input });
    } finally {
      delete process.env.BETON_SOURCE_DECODER;
    }
    expect('bytes' in transcodeSource(input, undefined, () => ({ width: 4, height: 4, jpegQuality: 90 }))).toBe(true);
  });
});

// A representative slice fast: 1×1, two odd sizes and a tall one, one integer resize factor
// (200 -> 100), and the write mode that mixes raw and JPEG samples. The whole matrix (seven sizes
// up to 512×512, every write mode) and the race of odd JPEGs over two workers (24 copies each;
// jpegCheck's verdicts are checked here) are writer-transcode-matrix.test.ts.
describeTranscodeMatrix({
  sizes: [
    [1, 1],
    [17, 13],
    [333, 251],
    [64, 480],
    [200, 200],
  ],
  modes: [['proportion', 40]],
  copies: 0,
});

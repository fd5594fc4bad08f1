/**
 * The writer's one-call image path (native transcodeJpeg via the codec's transcode): the
 * same bytes as the step-by-step path (decode → INTER_AREA → JPEG encode), null for
 * everything it must leave to sharp, and whole files identical with it on and off
 * (BETON_SOURCE_DECODER=sharp), for every write mode and worker count; and the damage
 * check (jpegCheck) that keeps sharp's verdicts on odd JPEGs stable under several workers.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { RGBImageField, cappedSize, type WriteMode } from '../../core/fields/rgb-image-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { jpegDecodeRGB, jpegEncodeRGB, jpegInfo } from '../../core/native/jpeg-codec.js';
import { resizeAreaRGB } from '../../core/native/area-resize.js';
import { nodeImageCodec } from '../../core/images/node-image-codec.js';
import { transcodeSource } from '../../core/images/transcode-source.js';
import { hasTranscodeJpeg, jpegCheck, threadCpuMs, transcodeJpeg } from '../../core/native/writer-transcode.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { craftCmykJpeg, makePixels, writeOddImages } from '../helpers/odd-images.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-transcode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The step-by-step path: accurate decode (PIL's pixels), exact area resize, OpenCV-equal encode. */
function stepwise(jpeg: Uint8Array, w: number, h: number, quality: number | null): Uint8Array {
  const info = jpegInfo(jpeg);
  const px = new Uint8Array(info.width * info.height * 3);
  jpegDecodeRGB(jpeg, px, { fastDct: false, strict: true });
  const small = w === info.width && h === info.height ? px : resizeAreaRGB(px, info.width, info.height, w, h);
  return quality === null ? small : new Uint8Array(jpegEncodeRGB(small, w, h, quality));
}

const noise = (w: number, h: number): Uint8Array =>
  makePixels(w, h, (x, y) => [(x * 7 + y * 3) & 255, (x * y + 11) & 255, (255 - x * 5 + y) & 255]).data;

describe('transcodeJpeg', () => {
  it('is available in this build', () => {
    expect(hasTranscodeJpeg()).toBe(true);
    expect(threadCpuMs()).toBeGreaterThan(0);
  });

  it('gives the step-by-step bytes: sizes, subsampling, progressive, grey, qualities, caps, raw', async () => {
    let n = 0;
    for (const [w, h] of [
      [1, 1],
      [17, 13],
      [333, 251],
      [500, 300],
      [64, 480],
      [512, 512],
      [300, 300],
    ] as const) {
      const img = () => sharp(Buffer.from(noise(w, h)), { raw: { width: w, height: h, channels: 3 } });
      const sources = [
        await img().jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer(),
        await img().jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).toBuffer(),
        await img().jpeg({ quality: 60, progressive: true }).toBuffer(),
        await img().greyscale().jpeg({ quality: 90 }).toBuffer(),
      ];
      for (const src of sources) {
        // 256 and 100: fractional and (512 -> 256) integer factors; 1000: no resize.
        for (const cap of [256, 100, 1000]) {
          const [tw, th] = cappedSize(w, h, cap);
          if (tw < 1 || th < 1) continue;
          for (const quality of [90, 75, null]) {
            const got = transcodeJpeg(src, w, h, tw, th, quality);
            expect(got, `${w}x${h} cap ${cap} q${quality}`).not.toBeNull();
            expect(sha(got!), `${w}x${h} cap ${cap} q${quality}`).toBe(sha(stepwise(src, tw, th, quality)));
            n++;
          }
        }
      }
    }
    expect(n).toBeGreaterThan(200);
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

describe('DatasetWriter: the same file with the one-call path on and off', () => {
  // Every loadable odd image (JPEGs the native path takes and ones it leaves to sharp:
  // CMYK, EXIF-rotated, extra bytes before a marker (a libjpeg warning), Display P3, PNG,
  // WebP, …) plus ordinary ones, as an ImageFolder. The sharp-only reference is built on
  // the calling thread: sharp's own warning retries can misfire when several workers run
  // libvips at once (see docs/status.md, writer), which is not what this test is about.
  const root = join(dir, 'folder');
  const ready = (async () => {
    await writeOddImages(root, { only: 'ok' });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'plain'), { recursive: true });
    for (let i = 0; i < 12; i++) {
      const w = 40 + i * 13;
      const h = 90 - i * 4;
      const jpg = await sharp(Buffer.from(noise(w, h)), { raw: { width: w, height: h, channels: 3 } })
        .jpeg({ quality: 90 })
        .toBuffer();
      writeFileSync(join(root, 'plain', `${i}.jpg`), jpg);
    }
    return new ImageFolderSource(root);
  })();

  async function build(
    mode: WriteMode,
    numWorkers: number,
    sharpOnly: boolean,
    maxResolution: number | null,
  ): Promise<{ sha: string; jpg: number; skipped: string[]; transcoded: number }> {
    const source = await ready;
    const out = join(dir, `${mode}-${numWorkers}-${sharpOnly ? 'sharp' : 'native'}-${maxResolution}.beton`);
    if (sharpOnly) process.env.BETON_SOURCE_DECODER = 'sharp';
    try {
      const schema = {
        image: new RGBImageField({
          writeMode: mode,
          maxResolution,
          smartThreshold: 40 * 40 * 3,
          compressProbability: 0.5,
          jpegQuality: 87,
        }),
        label: new IntField(),
      };
      // 'skip': the 1x4000 and 4000x1 images cannot shrink under small caps; both paths must say so.
      const report = await new DatasetWriter(out, schema, {
        numWorkers,
        chunkSize: 7,
        seed: 3,
        pageSize: 1 << 16,
        allowSmallPages: true,
        onError: 'skip',
        timings: true,
      }).write([...source]);
      return {
        sha: sha(readFileSync(out)),
        jpg: report.imageModes['image']!.jpg,
        skipped: report.skipped.map((k) => `${k.index}: ${k.reason}`),
        transcoded: report.timings?.workers.reduce((t, w) => t + w.transcoded, 0) ?? 0,
      };
    } finally {
      delete process.env.BETON_SOURCE_DECODER;
    }
  }

  it.each([
    ['jpg', 32],
    ['jpg', null],
    ['smart', 48],
    ['raw', 24],
    ['proportion', 40],
  ] as const)('%s, maxResolution %s: workers 0 and 2, native and sharp-only give one file', async (mode, maxResolution) => {
    const ref = await build(mode, 0, true, maxResolution);
    expect(await build(mode, 0, false, maxResolution)).toEqual(ref);
    // (numWorkers 0 reports no worker timings, so ref.transcoded is 0.)
    const { transcoded, ...w2 } = await build(mode, 2, false, maxResolution);
    const { transcoded: _none, ...same } = ref;
    expect(w2).toEqual(same);
    // Both paths ran: the ordinary JPEGs natively, the odd ones through sharp.
    const total = (await ready).length;
    expect(transcoded).toBeGreaterThanOrEqual(12);
    expect(transcoded).toBeLessThan(total - ref.skipped.length);
    if (mode === 'proportion') expect(ref.jpg).toBeGreaterThan(0);
  });
});

describe('odd JPEGs decoded by several workers at once', () => {
  // libvips' warning handling is process-wide: when two encode workers ran sharp's
  // fail-on-warning loads at once, a cut-off file was now and then accepted (decoded to grey
  // fill) and a file missing only its EOI refused. The damage check is libjpeg's own now
  // (jpegCheck), per call, so the verdicts are the same every time.
  it('gives the same verdict for every copy of a file', async () => {
    const root = join(dir, 'concurrent');
    const cases = await writeOddImages(join(dir, 'concurrent-src'));
    const pick = [
      'truncated-then-eoi.jpg',
      'truncated-scan.jpg',
      'missing-eoi.jpg',
      'extraneous-bytes.jpg',
      'cmyk-adobe.jpg',
      'exif-orientation-6.jpg',
      'srgb-icc.jpg',
    ];
    const chosen = cases.filter((c) => pick.includes(c.name));
    expect(chosen.length).toBe(pick.length);
    const { mkdirSync, copyFileSync } = await import('node:fs');
    mkdirSync(join(root, 'a'), { recursive: true });
    const copies = 24;
    for (let k = 0; k < copies; k++)
      for (const c of chosen) copyFileSync(c.path, join(root, 'a', `${String(k).padStart(2, '0')}-${c.name}`));
    const source = new ImageFolderSource(root);
    const schema = { image: new RGBImageField({ writeMode: 'jpg', maxResolution: 64 }), label: new IntField() };
    const report = await new DatasetWriter(join(dir, 'concurrent.beton'), schema, { numWorkers: 2, chunkSize: 1, onError: 'skip' }).write([
      ...source,
    ]);
    const skipped = new Map<string, number>();
    for (const s of report.skipped) {
      const name = (s.source ?? '').replace(/^.*\/\d\d-/, '');
      skipped.set(name, (skipped.get(name) ?? 0) + 1);
    }
    expect(Object.fromEntries(skipped)).toEqual({ 'truncated-then-eoi.jpg': copies, 'truncated-scan.jpg': copies });
    expect(report.numSamples).toBe(copies * (pick.length - 2));
  });
});

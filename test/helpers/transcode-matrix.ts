/**
 * The scalable parts of test/writer/writer-transcode.test.ts, as one suite run at two sizes:
 * the fast tier runs a representative slice (writer-transcode.test.ts), the slow tier the
 * whole matrix (writer-transcode-matrix.test.ts): transcodeJpeg against the step-by-step
 * path over image sizes, whole files with the one-call path on and off per write mode, and
 * the damage verdicts of odd JPEGs decoded by several workers at once.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField, cappedSize, type WriteMode } from '../../core/fields/rgb-image-field.js';
import { resizeAreaRGB } from '../../core/native/area-resize.js';
import { jpegDecodeRGB, jpegEncodeRGB, jpegInfo } from '../../core/native/jpeg-codec.js';
import { transcodeJpeg } from '../../core/native/writer-transcode.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { makePixels, writeOddImages } from './odd-images.js';

export interface TranscodeScope {
  /** Source image sizes for the byte-for-byte comparison with the step-by-step path. */
  sizes: ReadonlyArray<readonly [number, number]>;
  /** Write modes (and caps) built with the one-call path on and off. */
  modes: ReadonlyArray<readonly [WriteMode, number | null]>;
  /** Copies of each odd JPEG handed to two workers at once (0: not run; a race wants many). */
  copies: number;
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The step-by-step path: accurate decode (PIL's pixels), exact area resize, OpenCV-equal encode. */
function stepwise(jpeg: Uint8Array, w: number, h: number, quality: number | null): Uint8Array {
  const info = jpegInfo(jpeg);
  const px = new Uint8Array(info.width * info.height * 3);
  jpegDecodeRGB(jpeg, px, { fastDct: false, strict: true });
  const small = w === info.width && h === info.height ? px : resizeAreaRGB(px, info.width, info.height, w, h);
  return quality === null ? small : new Uint8Array(jpegEncodeRGB(small, w, h, quality));
}

export const noise = (w: number, h: number): Uint8Array =>
  makePixels(w, h, (x, y) => [(x * 7 + y * 3) & 255, (x * y + 11) & 255, (255 - x * 5 + y) & 255]).data;

export function describeTranscodeMatrix(scope: TranscodeScope): void {
  const dir = mkdtempSync(join(tmpdir(), 'beton-transcode-matrix-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('transcodeJpeg against the step-by-step path', () => {
    it('gives the step-by-step bytes: sizes, subsampling, progressive, grey, qualities, caps, raw', async () => {
      let n = 0;
      for (const [w, h] of scope.sizes) {
        const img = () => sharp(Buffer.from(noise(w, h)), { raw: { width: w, height: h, channels: 3 } });
        const sources = [
          await img().jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer(),
          await img().jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).toBuffer(),
          await img().jpeg({ quality: 60, progressive: true }).toBuffer(),
          await img().greyscale().jpeg({ quality: 90 }).toBuffer(),
        ];
        for (const src of sources) {
          // 256 and 100: fractional and integer (512 -> 256, 200 -> 100) factors; 1000: no resize.
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
      // Every size, source, cap and quality was compared (no cap shrinks these sizes below 1).
      expect(n).toBe(scope.sizes.length * 4 * 3 * 3);
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

    it.each(scope.modes)('%s, maxResolution %s: workers 0 and 2, native and sharp-only give one file', async (mode, maxResolution) => {
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

  describe.runIf(scope.copies > 0)('odd JPEGs decoded by several workers at once', () => {
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
      mkdirSync(join(root, 'a'), { recursive: true });
      const { copies } = scope;
      for (let k = 0; k < copies; k++)
        for (const c of chosen) copyFileSync(c.path, join(root, 'a', `${String(k).padStart(2, '0')}-${c.name}`));
      const source = new ImageFolderSource(root);
      const schema = { image: new RGBImageField({ writeMode: 'jpg', maxResolution: 64 }), label: new IntField() };
      const report = await new DatasetWriter(join(dir, 'concurrent.beton'), schema, { numWorkers: 2, chunkSize: 1, onError: 'skip' }).write(
        [...source],
      );
      const skipped = new Map<string, number>();
      for (const s of report.skipped) {
        const name = (s.source ?? '').replace(/^.*\/\d\d-/, '');
        skipped.set(name, (skipped.get(name) ?? 0) + 1);
      }
      expect(Object.fromEntries(skipped)).toEqual({ 'truncated-then-eoi.jpg': copies, 'truncated-scan.jpg': copies });
      expect(report.numSamples).toBe(copies * (pick.length - 2));
    });
  });
}

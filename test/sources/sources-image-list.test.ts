import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_IMAGE_WRITE_MODE, DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD } from '../../core/api/constants.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldConfig } from '../../core/api/build-config.js';
import type { DecodedImage } from '../../core/fields/rgb-image-field.js';
import { openImageListSource } from '../../core/sources/images/image-list-source.js';
import { detectSourceConfig, openSource } from '../../core/sources/open-source.js';
import { buildAndOpen, readAll, tempDir } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-list-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

/** Three small solid-colour PNGs of different sizes. */
const images = [
  { file: 'imgs/red.png', w: 5, h: 4, rgb: [255, 0, 0] },
  { file: 'imgs/green.png', w: 3, h: 6, rgb: [0, 200, 0] },
  { file: 'imgs/sub/blue.PNG', w: 7, h: 2, rgb: [10, 20, 250] },
] as const;

beforeAll(async () => {
  mkdirSync(join(dir, 'imgs', 'sub'), { recursive: true });
  for (const im of images) {
    await sharp({ create: { width: im.w, height: im.h, channels: 3, background: { r: im.rgb[0], g: im.rgb[1], b: im.rgb[2] } } })
      .png()
      .toFile(join(dir, im.file));
  }
});

function expectImages(got: Array<Record<string, unknown>>, key = 'image', first = 0): void {
  got.forEach((s, i) => {
    const img = s[key] as DecodedImage;
    const want = images[first + i]!;
    expect([img.width, img.height]).toEqual([want.w, want.h]);
    expect(img.data.byteLength).toBe(want.w * want.h * 3);
    for (let p = 0; p < want.w * want.h; p++) expect([img.data[p * 3], img.data[p * 3 + 1], img.data[p * 3 + 2]]).toEqual(want.rgb);
  });
}

describe('image list source', () => {
  it('CSV: detected as an image list, image column → rgb_image "image", paths relative to the list', async () => {
    writeFileSync(join(dir, 'list.csv'), `file,label,caption\n${images.map((im, i) => `${im.file},${i},"a ${im.file}"`).join('\n')}\n`);
    const cfg = await detectSourceConfig(join(dir, 'list.csv'));
    expect(cfg).toEqual({ type: 'image_list', path: join(dir, 'list.csv'), imageColumn: 'file', format: 'csv' });
    const src = await openSource(cfg, '/');
    expect(src.kind).toBe('image_list');
    expect(src.length).toBe(3);
    expect(src.baseDir).toBe(dir);
    const fields = await src.detectSchema();
    expect(fields).toEqual([
      {
        name: 'image',
        type: 'rgb_image',
        writeMode: DEFAULT_IMAGE_WRITE_MODE,
        maxResolution: DEFAULT_MAX_RESOLUTION,
        smartThreshold: DEFAULT_SMART_THRESHOLD,
        jpegQuality: 90,
        compressProbability: 0.5,
        passThrough: false,
        columns: ['file'],
      },
      { name: 'label', type: 'int' },
      { name: 'caption', type: 'json' },
    ]);
    const r = await buildAndOpen(src, fields, out());
    const got = readAll(r);
    expectImages(got);
    expect(got.map((s) => s.label)).toEqual([0n, 1n, 2n]);
    expect(got.map((s) => s.caption)).toEqual(images.map((im) => `a ${im.file}`));
    r.close();
  });

  it('JSONL with an explicit image column, absolute paths too, and a range', async () => {
    const lines = images.map((im, i) =>
      JSON.stringify({ path: i === 1 ? join(dir, im.file) : im.file, cls: ['r', 'g', 'b'][i], box: [i, i + 1, 2, 2] }),
    );
    writeFileSync(join(dir, 'list.jsonl'), lines.join('\n') + '\n');
    const src = await openImageListSource(join(dir, 'list.jsonl'), 'path');
    const fields = await src.detectSchema();
    expect(fields.map((f) => [f.name, f.type, f.columns])).toEqual([
      ['image', 'rgb_image', ['path']],
      ['cls', 'json', undefined],
      ['box', 'ndarray', undefined],
    ]);
    const r = await buildAndOpen(src, fields, out(), { start: 1, end: 3 });
    const got = readAll(r);
    expect(got.length).toBe(2);
    expectImages(got, 'image', 1);
    expect(got.map((s) => s.cls)).toEqual(['g', 'b']);
    r.close();
  });

  it('TSV with --image-column given, and another field mapped explicitly', async () => {
    writeFileSync(join(dir, 'list.tsv'), `img\tlabel\n${images.map((im, i) => `${im.file}\t${i * 10}`).join('\n')}\n`);
    const cfg = await detectSourceConfig(join(dir, 'list.tsv'), { imageColumn: 'img' });
    expect(cfg).toMatchObject({ type: 'image_list', imageColumn: 'img', format: 'tsv' });
    const src = await openSource(cfg, dir);
    const fields: FieldConfig[] = [
      {
        name: 'pic',
        type: 'rgb_image',
        writeMode: DEFAULT_IMAGE_WRITE_MODE,
        maxResolution: DEFAULT_MAX_RESOLUTION,
        smartThreshold: DEFAULT_SMART_THRESHOLD,
        jpegQuality: 90,
        compressProbability: 0.5,
        passThrough: false,
        columns: ['img'],
      },
      { name: 'y', type: 'float', columns: ['label'] },
    ];
    const r = await buildAndOpen(src, fields, out());
    const got = readAll(r);
    expectImages(got, 'pic');
    expect(got.map((s) => s.y)).toEqual([0, 10, 20]);
    r.close();
  });

  it('an unknown image column is named with the columns there are', async () => {
    writeFileSync(join(dir, 'x.csv'), 'a,b\n1,2\n');
    await expect(openImageListSource(join(dir, 'x.csv'), 'file')).rejects.toThrow(/no image column "file"; the columns are "a", "b"/);
  });

  it('a missing image names its path when building', async () => {
    writeFileSync(join(dir, 'missing.csv'), 'file\nimgs/red.png\nimgs/nope.png\n');
    const src = await openImageListSource(join(dir, 'missing.csv'), 'file');
    await expect(buildAndOpen(src, await src.detectSchema(), out())).rejects.toThrow(/nope\.png/);
  });
});

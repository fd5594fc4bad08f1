import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_IMAGE_WRITE_MODE, DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD } from '../../core/api/constants.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedImage } from '../../core/fields/rgb-image-field.js';
import { BetonEncodeError } from '../../core/format/errors.js';
import { detectSourceConfig, openSource } from '../../core/sources/open-source.js';
import { buildAndOpen, npyBytes, readAll, tempDir, zipBytes } from '../fixtures/sources/make-sources.js';

const { dir, cleanup } = tempDir('beton-src-open-');
afterAll(cleanup);
let n = 0;
const out = (): string => join(dir, `o${n++}.beton`);

beforeAll(async () => {
  for (const [cls, name, g] of [
    ['cat', 'b.png', 10],
    ['cat', 'a.png', 20],
    ['dog', 'c.png', 30],
  ] as const) {
    mkdirSync(join(dir, 'folder', cls), { recursive: true });
    await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: g, g, b: g } } })
      .png()
      .toFile(join(dir, 'folder', cls, name));
  }
  writeFileSync(join(dir, 't.csv'), 'a,b\n1,x\n2,y\n');
  writeFileSync(join(dir, 't.jsonl'), '{"a": 1}\n');
  writeFileSync(join(dir, 't.npy'), npyBytes('<f4', [2], new Uint8Array(8)));
  writeFileSync(join(dir, 't.npz'), zipBytes([{ name: 'q.npy', data: npyBytes('<f4', [2], new Uint8Array(8)), deflate: false }]));
  writeFileSync(join(dir, 'data.txt'), 'a,b\n1,2\n');
});

describe('openSource / detectSourceConfig', () => {
  it('an image folder: image + label, torchvision order, extra path/class columns', async () => {
    const cfg = await detectSourceConfig(join(dir, 'folder'));
    expect(cfg).toEqual({ type: 'image_folder', path: join(dir, 'folder') });
    const src = await openSource({ type: 'image_folder', path: 'folder' }, dir);
    expect(src.kind).toBe('image_folder');
    expect(src.length).toBe(3);
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
      },
      { name: 'label', type: 'int' },
    ]);
    const r = await buildAndOpen(src, [...fields, { name: 'path', type: 'json' }, { name: 'class', type: 'json' }], out());
    const got = readAll(r);
    expect(got.map((s) => [s.label, s.path, s.class, (s.image as DecodedImage).data[0]])).toEqual([
      [0n, join('cat', 'a.png'), 'cat', 20],
      [0n, join('cat', 'b.png'), 'cat', 10],
      [1n, join('dog', 'c.png'), 'dog', 30],
    ]);
    r.close();
    const sliced = await buildAndOpen(src, fields, out(), { start: 2, end: 3 });
    expect(readAll(sliced).map((s) => s.label)).toEqual([1n]);
    sliced.close();
  });

  it.each([
    ['t.csv', 'csv'],
    ['t.jsonl', 'jsonl'],
    ['t.npy', 'npy'],
    ['t.npz', 'npz'],
  ])('%s → a %s table', async (file, format) => {
    const cfg = await detectSourceConfig(join(dir, file));
    expect(cfg).toEqual({ type: 'table', path: join(dir, file), format });
    const src = await openSource(cfg, dir);
    expect(src.kind).toBe(format);
    expect(src.path).toBe(join(dir, file));
  });

  it('an explicit format overrides the extension', async () => {
    const src = await openSource({ type: 'table', path: 'data.txt', format: 'csv' }, dir);
    expect(await src.detectSchema()).toEqual([
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int' },
    ]);
  });

  it('clear errors: unknown extension, missing path, --image-column on the wrong kind', async () => {
    await expect(detectSourceConfig(join(dir, 'data.txt'))).rejects.toThrow(/cannot tell the table format from the extension ".txt"/);
    await expect(openSource({ type: 'table', path: 'nope.csv' }, dir)).rejects.toThrow(
      /cannot open source .*nope\.csv: no such file or folder/,
    );
    await expect(openSource({ type: 'image_folder', path: 't.csv' }, dir)).rejects.toThrow(/is a file; an image_folder source is a folder/);
    await expect(detectSourceConfig(join(dir, 't.npy'), { imageColumn: 'x' })).rejects.toThrow(/--image-column needs a CSV, TSV or JSONL/);
    await expect(detectSourceConfig(join(dir, 'folder'), { imageColumn: 'x' })).rejects.toBeInstanceOf(BetonEncodeError);
    await expect(openSource({ type: 'image_list', path: 't.npz', imageColumn: 'q' }, dir)).rejects.toThrow(
      /an image list is a CSV, TSV or JSONL file, not npz/,
    );
  });

  it('the sample stream carries its length when the slice is known', async () => {
    const src = await openSource({ type: 'table', path: 't.csv' }, dir);
    expect((src.samples([{ name: 'a', type: 'int' }], { start: 0, end: 2 }) as { length?: number }).length).toBe(2);
    expect((src.samples([{ name: 'a', type: 'int' }]) as { length?: number }).length).toBe(2); // counted: small file
  });
});

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRGB } from '../../core/images/load-rgb.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { FIXTURES } from '../helpers/fixtures.js';

const root = join(FIXTURES, 'src_images');
const index = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as {
  classes: string[];
  files: Array<{ index: number; path: string; label: number; rgb_sha256: string }>;
};

describe('ImageFolder matches torchvision on the fixture tree', () => {
  it('classes, labels and sample order', () => {
    const src = new ImageFolderSource(root);
    expect(src.classes).toEqual(index.classes);
    expect(src.items.map((it) => [relative(root, it.path), it.label])).toEqual(index.files.map((f) => [f.path, f.label]));
  });

  it('decoded pixels equal PIL convert("RGB") (grey, RGBA, PNG and JPEG sources)', async () => {
    for (const f of index.files) {
      const px = await loadRGB(join(root, f.path));
      expect(createHash('sha256').update(px.data).digest('hex'), f.path).toBe(f.rgb_sha256);
    }
  });
});

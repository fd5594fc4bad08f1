// A small image folder for CLI tests where the number of images is not the point: a build
// of it takes a fraction of one of the 48 bundled sample images (assets/sample-images).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_IMAGES } from './cli-inputs.js';

/** The classes copied, in the order an image-folder source reads them (labels 0, 1). */
export const SMALL_CLASSES = ['circles', 'stripes'] as const;

/**
 * Copies the first `perClass` images (JPEG and PNG as they come) of two sample classes to
 * `folder/<class>/`; returns `folder`, an image-folder source of 2 × perClass images.
 */
export function smallImageFolder(folder: string, perClass = 3): string {
  for (const cls of SMALL_CLASSES) {
    mkdirSync(join(folder, cls), { recursive: true });
    for (const f of readdirSync(join(SAMPLE_IMAGES, cls)).sort().slice(0, perClass))
      copyFileSync(join(SAMPLE_IMAGES, cls, f), join(folder, cls, f));
  }
  return folder;
}
